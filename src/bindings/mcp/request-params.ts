/**
 * The params of the MCP requests whose shape the SDK checks with a schema it reports raw: a bad
 * `initialize` or `resources/read` came back as -32603 with the whole zod issue list as its
 * message (issue 19). Checked here first, a malformed request gets InvalidParams (-32602) naming
 * the first field at fault, in one short sentence; well-formed ones go on to the SDK untouched.
 */
import { MODERN_VERSIONS } from './admission/lenient-edge.js';
import { MCP_CODE } from './mcp-errors.js';

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

type Check = (params: Record<string, unknown>) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const str =
  (field: string): Check =>
  (p) =>
    typeof p[field] === 'string' ? undefined : `'params.${field}' must be a string`;
const optObject =
  (field: string): Check =>
  (p) =>
    p[field] === undefined || isObject(p[field]) ? undefined : `'params.${field}' must be an object`;
const obj =
  (field: string): Check =>
  (p) =>
    isObject(p[field]) ? undefined : `'params.${field}' must be an object`;
const clientInfo: Check = (p) => {
  const c = p.clientInfo;
  if (!isObject(c)) return `'params.clientInfo' must be an object`;
  if (typeof c.name !== 'string') return `'params.clientInfo.name' must be a string`;
  if (typeof c.version !== 'string') return `'params.clientInfo.version' must be a string`;
  return undefined;
};

const CHECKS: Readonly<Record<string, readonly Check[]>> = {
  initialize: [str('protocolVersion'), obj('capabilities'), clientInfo],
  'resources/read': [str('uri')],
  'resources/subscribe': [str('uri')],
  'resources/unsubscribe': [str('uri')],
  'tools/call': [str('name'), optObject('arguments')],
  'prompts/get': [str('name'), optObject('arguments')],
};

/**
 * The JSON-RPC error for a request whose params are malformed, or undefined to let it through.
 * Modern-era requests (`_meta` names a modern version, or the header does) are the SDK's alone:
 * there `initialize` is a removed method (404 -32601), not a malformed one.
 */
export function invalidParamsOf(message: unknown, versionHeader: string | undefined): { id: string | number | null; error: { code: typeof MCP_CODE.InvalidParams; message: string } } | undefined {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message)) return undefined;
  const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta[PROTOCOL_VERSION_META] : undefined;
  if ((typeof meta === 'string' && MODERN_VERSIONS.includes(meta)) || (versionHeader !== undefined && MODERN_VERSIONS.includes(versionHeader))) return undefined;
  const checks = CHECKS[message.method];
  if (!checks) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const params = message.params;
  if (params !== undefined && !isObject(params)) return { id, error: { code: MCP_CODE.InvalidParams, message: `Invalid params for ${message.method}: 'params' must be an object` } };
  for (const check of checks) {
    const problem = check(params ?? {});
    if (problem) return { id, error: { code: MCP_CODE.InvalidParams, message: `Invalid params for ${message.method}: ${problem}` } };
  }
  return undefined;
}

/**
 * What every answer to a fuzzed request must satisfy, whatever the request was: no 5xx, an error
 * body in the shape of the face that answered (JSON-RPC, A2A HTTP+JSON v1.0 or v0.3, OAuth), JSON
 * that parses when it says it is JSON, and no internal text (stack frames, file paths, error class
 * names) unless the request itself carried that text and it is being echoed back.
 */
import type { FuzzRequest } from './mutations.js';

export interface Answer {
  status: number;
  contentType: string;
  /** the body, or its first chunk for an event stream */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Finding {
  kind: '5xx' | 'leak' | 'shape' | 'not-json' | 'no-answer' | 'grpc-internal' | 'crash';
  detail: string;
  request: FuzzRequest | { grpc: string; bytes: string };
  status?: number | string;
  excerpt?: string;
}

const LEAKS: Array<[string, RegExp]> = [
  ['stack frame', /(^|\n|\\n)\s*at \S/],
  ['stack frame', /\bat (async )?[\w$.<>[\]]+ \(/],
  ['node_modules', /node_modules/],
  ['"Error:"', /Error:/],
  ['file path', /(\/(work|src|dist|home|usr|tmp|opt|var|root)\/)|\.(ts|js|mjs|cjs):\d+/],
  ['internal error name', /\b(RangeError|TypeError|SyntaxError|ReferenceError|SqliteError|FST_ERR_\w+|ERR_\w+)\b/],
];

/** Leak patterns found in `text` that the request did not itself contain. */
export function leaksIn(text: string, requestText: string): string[] {
  return LEAKS.filter(([, re]) => re.test(text) && !re.test(requestText)).map(([name]) => name);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isJsonRpcError = (v: unknown) => isObject(v) && v.jsonrpc === '2.0' && isObject(v.error) && Number.isInteger(v.error.code) && typeof v.error.message === 'string';
const isRestError = (v: unknown) => isObject(v) && isObject(v.error) && Number.isInteger(v.error.code) && typeof v.error.status === 'string' && typeof v.error.message === 'string';
const isV03RestError = (v: unknown) => isObject(v) && Number.isInteger(v.code) && typeof v.message === 'string';
const isOAuthError = (v: unknown) => isObject(v) && typeof v.error === 'string';

type Shape = 'jsonrpc' | 'rest' | 'v03-rest' | 'oauth';
const CHECKS: Record<Shape, (v: unknown) => boolean> = { jsonrpc: isJsonRpcError, rest: isRestError, 'v03-rest': isV03RestError, oauth: isOAuthError };

const COMPAT_PATHS = new Set(['/mcp', '/mcp/initialize', '/mcp/tools/list', '/mcp/tools/call', '/mcp/resources/list', '/mcp/health', '/mcp/validate', '/.well-known/mcp-metadata']);

/** An undecodable path is no MCP endpoint's: the A2A endpoint refuses it in its own shape. */
function decodes(p: string): boolean {
  try {
    decodeURIComponent(p);
    return true;
  } catch {
    return false;
  }
}

/** The error shapes a path may answer in (the face that owns it, or Fastify's not-found for the rest). */
export function shapesFor(path: string): Shape[] | 'any' {
  const p = path.split('?')[0]!.replace(/(.)\/$/, '$1');
  if (p.startsWith('/mcp/config')) return 'any'; // an HTML page
  if (p.startsWith('/oauth/') || p.startsWith('/mcp/oauth/') || /\/\.well-known\/(oauth-|openid)/.test(p)) return ['oauth', 'rest'];
  if (COMPAT_PATHS.has(p) || (/^\/a2a\/[^/]+\/mcp$/.test(p) && decodes(p))) return ['jsonrpc'];
  if (p === '/a2a' || p.startsWith('/a2a/')) return ['jsonrpc', 'rest', 'v03-rest'];
  return ['rest'];
}

export function requestText(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : Buffer.from(r.body, 'base64').toString('utf8');
  let path = r.path;
  try {
    path = decodeURIComponent(r.path);
  } catch {
    // keep it encoded
  }
  return `${r.method} ${r.path} ${path} ${JSON.stringify(r.headers)} ${body}`;
}

/** Every way this answer breaks the rules (empty when it is fine). */
export function judge(r: FuzzRequest, a: Answer): Finding[] {
  const out: Finding[] = [];
  const excerpt = a.text.slice(0, 300);
  if (a.status >= 500) out.push({ kind: '5xx', detail: `HTTP ${a.status}`, request: r, status: a.status, excerpt });
  const leaks = leaksIn(a.text, requestText(r));
  if (leaks.length) out.push({ kind: 'leak', detail: leaks.join(', '), request: r, status: a.status, excerpt });
  const isJson = /\bjson\b/i.test(a.contentType);
  if (!isJson || r.method === 'HEAD' || a.status === 204 || a.status === 304 || a.text === '') return out;
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    out.push({ kind: 'not-json', detail: `Content-Type ${a.contentType} but the body is not JSON`, request: r, status: a.status, excerpt });
    return out;
  }
  const shapes = shapesFor(r.path);
  const isError = a.status >= 400 || (isObject(body) && body.jsonrpc === '2.0' && 'error' in body);
  if (isError && shapes !== 'any' && !shapes.some((s) => CHECKS[s](body))) {
    out.push({ kind: 'shape', detail: `HTTP ${a.status}: not a ${shapes.join(' / ')} error`, request: r, status: a.status, excerpt });
  }
  return out;
}

/**
 * The tool list that `/mcp/tools/list` and `/.well-known/mcp-metadata` publish without
 * authentication: the tools of the agents whose cards are public, exactly as `tools/list` on
 * `/mcp` builds them (the same server factory, asked in-process once). It discloses nothing the
 * public cards do not: a tool is a skill's name, description and the fixed input schema.
 * Computed once, and again after the registry changes.
 */
import { createMcpHandler, type Tool } from '@modelcontextprotocol/server';
import type { AgentRegistry } from '../../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../../core/a2a-handler.js';
import type { SkillAnnotationsLookup } from '../tools/agent-tools.js';
import { createTaskStateCodec } from '../tools/input-required.js';
import { createMcpServerFactory, InFlightCalls, principalOf, type McpScope } from '../surface/mcp-server-factory.js';

export interface PublicToolsDeps {
  registry: AgentRegistry;
  handler: A2AHandler;
  version: string;
  log: { debug(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  skillAnnotations?: SkillAnnotationsLookup;
  genericTools: boolean;
  /** whether an agent's card is public (hidden agents' tools are not published); absent: every agent */
  isPublicAgent?: (agentId: string) => boolean;
}

const MODERN = '2026-07-28';

export function publicToolList(d: PublicToolsDeps): () => Promise<Tool[]> {
  let listing: Promise<Tool[]> | undefined;
  // Agents may come, go or change their skills (a remote MCP server's tools): list again.
  d.registry.onChange(() => (listing = undefined));
  return () =>
    (listing ??= list(d).catch((err: unknown) => {
      listing = undefined;
      throw err;
    }));
}

async function list(d: PublicToolsDeps): Promise<Tool[]> {
  const agents = d.registry.list().filter((a) => !d.isPublicAgent || d.isPublicAgent(a.id));
  const scope: McpScope = { name: '/mcp (public list)', agents };
  const factory = createMcpServerFactory(
    {
      handler: d.handler,
      inFlight: new InFlightCalls(),
      version: d.version,
      log: d.log,
      stateCodec: createTaskStateCodec({ subjectOf: (a) => principalOf(a).subject }),
      genericTools: d.genericTools,
      ...(d.skillAnnotations ? { skillAnnotations: d.skillAnnotations } : {}),
    },
    scope,
  );
  const handler = createMcpHandler(factory, { legacy: 'stateless' });
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        ...(cursor ? { cursor } : {}),
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'agentport-compat', version: d.version },
        },
      },
    };
    const res = await handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
        body: JSON.stringify(body),
      }),
    );
    const json = (await res.json()) as { result?: { tools: Tool[]; nextCursor?: string }; error?: { message: string } };
    if (!json.result) throw new Error(`tools/list failed in-process: ${json.error?.message ?? res.status}`);
    tools.push(...json.result.tools);
    cursor = json.result.nextCursor;
  } while (cursor);
  return tools;
}

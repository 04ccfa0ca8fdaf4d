/**
 * Official MCP clients against a running Agentport: the v2 client (`@modelcontextprotocol/client`,
 * modern era or legacy) and the v1 SDK client (`@modelcontextprotocol/sdk`, legacy Streamable HTTP).
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function modernClient(url: string, opts: { headers?: Record<string, string> } = {}): Promise<V2Client> {
  const client = new V2Client({ name: 'agentport-test-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new V2Transport(new URL(url), { requestInit: { headers: opts.headers ?? {} } }));
  return client;
}

export async function v2LegacyClient(url: string): Promise<V2Client> {
  const client = new V2Client({ name: 'agentport-test-v2-legacy', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new V2Transport(new URL(url)));
  return client;
}

export async function legacyClient(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'agentport-test-legacy', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url)));
  return client;
}

/** A raw JSON-RPC POST, for edge cases the clients never produce. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parseJsonOrSse(text) };
}

/** The JSON body, or the last `data:` message of an SSE body. */
export function parseJsonOrSse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6));
    if (!data.length) return undefined;
    try {
      return JSON.parse(data[data.length - 1]!);
    } catch {
      return undefined;
    }
  }
}

export const MODERN = '2026-07-28';

/** The `_meta` envelope of a modern request. */
export const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  ...extra,
});

/** Headers a modern request must carry. */
export const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

/**
 * The MCP client SDK's OAuth helpers, loaded on first use: every start reaches this folder (the
 * server wires remote connections whether or not any remote is configured), and the SDK is ~100
 * modules of its own that a server without a remote's OAuth never runs (issue 26, suite time:
 * every `agentport serve` child paid for them).
 */
export type McpClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<McpClientSdk> | undefined;

export function mcpClientSdk(): Promise<McpClientSdk> {
  loading ??= import('@modelcontextprotocol/client');
  return loading;
}

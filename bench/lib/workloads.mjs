// The requests the A/B and profiling benches send: one blocking A2A echo, one MCP tools/call per era.
// Each body is prefix + a unique id + suffix (wrk makes the id); `ok` checks one answer.
export const WORKLOADS = {
  a2a: {
    path: '/a2a/echo',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"',
    bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]},"configuration":{"blocking":true}}}',
    ok: (j) => j?.result?.task?.status?.state === 'TASK_STATE_COMPLETED',
  },
  mcp: {
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_echo","arguments":{"message":"hello ',
    bodySuffix: '"}}}',
    ok: (j) => j?.result !== undefined && j.result.isError !== true,
  },
  // The same call in the modern era (2026-07-28): the per-request _meta envelope and its headers, as bench/mcp.js sends it.
  'mcp-modern': {
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo_echo' },
    bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_echo","arguments":{"message":"hello ',
    bodySuffix: '"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}',
    ok: (j) => j?.result !== undefined && j.result.isError !== true && j.result.resultType === 'complete',
  },
};

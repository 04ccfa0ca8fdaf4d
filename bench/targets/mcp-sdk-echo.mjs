// A plain MCP server as its SDK documents it: @modelcontextprotocol/server 2.4.0,
// createMcpHandler (stateless, legacy: 'stateless' so both eras are served), a fresh McpServer per
// request with one `echo_echo` tool that returns its `message` as text; node:http with the
// smallest node -> web Request bridge. No auth, no store, no tasks.
//
// Usage: node bench/targets/mcp-sdk-echo.mjs [--port N]   (0 = ephemeral)
// Prints one line "LISTENING <port>" on stdout once ready.
import http from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const i = process.argv.indexOf('--port');
const port = Number(i >= 0 ? process.argv[i + 1] : (process.env.PORT ?? '0'));

const inputSchema = fromJsonSchema({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false });
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'plain-sdk-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo_echo', { description: 'Returns the message unchanged', inputSchema }, (args) => ({ content: [{ type: 'text', text: args.message }] }));
    return server;
  },
  { legacy: 'stateless' },
);

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'host' && k !== 'connection' && k !== 'content-length') headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, ...(body && req.method !== 'GET' ? { body } : {}) }));
  const out = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  if (!response.body) return res.end();
  for await (const chunk of response.body) res.write(chunk);
  res.end();
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`LISTENING ${server.address().port}\n`));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 500).unref());

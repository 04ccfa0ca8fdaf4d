// Bare node:http baseline: reads every request body fully, then answers every
// POST with a fixed, pre-serialized JSON body shaped like a completed blocking
// SendMessage echo (~300 bytes). Paths ending in ":send" get the HTTP+JSON
// shape ({"task":...}); everything else gets the JSON-RPC envelope. No parsing,
// no store, no routing: this is the ceiling for Node on this machine.
//
// Usage: node bench/targets/bare-http.mjs [--port N] [--alloc BYTES]   (0 = ephemeral)
// --alloc: also parse each body and allocate about BYTES of short-lived objects a request, so a
// scavenge of this process can be set beside Agentport's at the same bytes a request
// (bench/gc-survivors.js --bare BYTES): what a scavenge costs with almost no old generation.
// Prints one line "LISTENING <port>" on stdout once ready.
import http from 'node:http';

function argValue(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}
const port = Number(argValue('--port', process.env.PORT ?? '0'));
const allocBytes = Number(argValue('--alloc', '0'));
// ~56 bytes an object on a 64-bit heap: a header of 3 words and 4 fields; calibrated against the
// scavenges' `allocated` (--trace-gc-nvp) rather than trusted
const allocObjects = Math.round(allocBytes / 56);
// returns the last object's index, sent back as a header so the work cannot be optimised away
function churn(body) {
  const parsed = JSON.parse(body);
  let o = null;
  for (let i = 0; i < allocObjects; i++) o = { i, parsed, prev: i % 16 === 0 ? null : o, s: 0 };
  return o === null ? 0 : o.i;
}

const task = {
  id: '5f0c6a52-2d8e-4c1b-9a57-1b7f0e2d9c11',
  contextId: '0b6f8e3a-7c44-4f0e-8d21-6a9f3c5e7b42',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-22T00:00:00.000Z' },
  artifacts: [
    {
      artifactId: '9d3e1f7a-4b62-4c8e-a1d5-3e7f9b2c6a80',
      name: 'echo',
      parts: [{ text: 'hello', mediaType: 'text/plain' }],
    },
  ],
};
const JSONRPC_BODY = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } }));
const REST_BODY = Buffer.from(JSON.stringify({ task }));
const JSONRPC_HEADERS = { 'content-type': 'application/json', 'content-length': JSONRPC_BODY.length };
const REST_HEADERS = { 'content-type': 'application/a2a+json', 'content-length': REST_BODY.length };

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(404, { 'content-length': 0 });
    res.end();
    return;
  }
  // read the body to its end, as a real server would, before answering
  const chunks = [];
  req.on('data', (c) => allocObjects > 0 && chunks.push(c));
  req.on('end', () => {
    if (allocObjects > 0) res.setHeader('x-churned', churn(Buffer.concat(chunks).toString()));
    if (req.url.endsWith(':send')) {
      res.writeHead(200, REST_HEADERS);
      res.end(REST_BODY);
    } else {
      res.writeHead(200, JSONRPC_HEADERS);
      res.end(JSONRPC_BODY);
    }
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

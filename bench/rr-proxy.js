#!/usr/bin/env node
// A tiny round-robin reverse proxy for trying a multi-replica Agentport deployment without nginx:
// every HTTP request goes to the next upstream in turn (no stickiness: any replica takes any request),
// and responses stream through unbuffered, so SSE events reach the client as the replica writes them.
// Optionally, a TCP listener spreads connections (e.g. gRPC, whose HTTP/2 connections are long-lived)
// over a second list of upstreams, one connection at a time.
//
//   node bench/rr-proxy.js --listen 9999 --upstream http://127.0.0.1:8081 --upstream http://127.0.0.1:8082 \
//        [--tcp-listen 50051 --tcp-upstream 127.0.0.1:50061 --tcp-upstream 127.0.0.1:50062] [--host 127.0.0.1] [--verbose]
//
// For the official A2A TCK against three replicas: start each replica with server.publicUrl set to
// the proxy's URL (so agent cards advertise the proxy), then point the TCK at the proxy.
import http from 'node:http';
import net from 'node:net';

const HELP = `Usage: node bench/rr-proxy.js --listen PORT --upstream URL [--upstream URL ...]
       [--tcp-listen PORT --tcp-upstream HOST:PORT [--tcp-upstream HOST:PORT ...]]
       [--host ADDR] [--verbose]

  --listen PORT          HTTP port to listen on
  --upstream URL         an upstream base URL (http://host:port); repeat, or comma-separate
  --tcp-listen PORT      optional TCP port whose connections are spread over --tcp-upstream
  --tcp-upstream H:P     an upstream address for the TCP listener (e.g. each replica's gRPC port)
  --host ADDR            address to listen on (default 127.0.0.1)
  --verbose              one line per request on stderr: method, path, upstream, status
`;

function parseArgs(argv) {
  const o = { listen: undefined, upstreams: [], tcpListen: undefined, tcpUpstreams: [], host: '127.0.0.1', verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--listen':
        o.listen = Number(next());
        break;
      case '--upstream':
        o.upstreams.push(...next().split(',').filter(Boolean));
        break;
      case '--tcp-listen':
        o.tcpListen = Number(next());
        break;
      case '--tcp-upstream':
        o.tcpUpstreams.push(...next().split(',').filter(Boolean));
        break;
      case '--host':
        o.host = next();
        break;
      case '--verbose':
        o.verbose = true;
        break;
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${a} (see --help)`);
    }
  }
  if (!Number.isInteger(o.listen) || o.listen < 0) throw new Error('--listen PORT is required');
  if (!o.upstreams.length) throw new Error('at least one --upstream is required');
  o.upstreams = o.upstreams.map((u) => {
    const url = new URL(u);
    if (url.protocol !== 'http:') throw new Error(`upstream ${u}: only http:// is supported`);
    return { host: url.hostname, port: Number(url.port || 80), label: url.host };
  });
  if (o.tcpListen !== undefined && !o.tcpUpstreams.length) throw new Error('--tcp-listen needs at least one --tcp-upstream');
  o.tcpUpstreams = o.tcpUpstreams.map((hp) => {
    const cut = hp.lastIndexOf(':');
    if (cut < 0) throw new Error(`--tcp-upstream ${hp}: expected HOST:PORT`);
    return { host: hp.slice(0, cut), port: Number(hp.slice(cut + 1)) };
  });
  return o;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own business, not forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

function endToEnd(headers) {
  const out = {};
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || listed.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

export function startProxy(o) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const up = o.upstreams[next];
    next = (next + 1) % o.upstreams.length;
    const headers = endToEnd(req.headers);
    const fwd = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${fwd}` : fwd;
    const upstreamReq = http.request({ host: up.host, port: up.port, method: req.method, path: req.url, headers, agent });
    upstreamReq.on('response', (upRes) => {
      if (o.verbose) process.stderr.write(`${req.method} ${req.url} -> ${up.label} ${upRes.statusCode}\n`);
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, endToEnd(upRes.headers));
      // Send the headers now: an SSE response may not write a body byte for a while.
      res.flushHeaders();
      // pipe() writes each chunk as it arrives (node:http adds no buffering of its own), with backpressure.
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
    });
    upstreamReq.on('error', (err) => {
      if (o.verbose) process.stderr.write(`${req.method} ${req.url} -> ${up.label} failed: ${err.message}\n`);
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 502, status: 'UNAVAILABLE', message: `upstream ${up.label} unreachable` } }));
      } else {
        res.destroy();
      }
    });
    // The client went away (e.g. closed an SSE stream): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  });
  server.on('connection', (socket) => socket.setNoDelay(true));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // SSE streams are long; the replicas send keep-alive pings

  let tcpServer;
  if (o.tcpListen !== undefined) {
    let tcpNext = 0;
    tcpServer = net.createServer((client) => {
      const up = o.tcpUpstreams[tcpNext];
      tcpNext = (tcpNext + 1) % o.tcpUpstreams.length;
      const upstream = net.connect(up.port, up.host);
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      client.pipe(upstream).pipe(client);
      const close = () => (client.destroy(), upstream.destroy());
      client.on('error', close);
      upstream.on('error', close);
      client.on('close', close);
      upstream.on('close', close);
    });
  }
  return { server, tcpServer };
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('rr-proxy.js');
if (isMain) {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n\n${HELP}`);
    process.exit(2);
  }
  const { server, tcpServer } = startProxy(o);
  server.listen(o.listen, o.host, () => {
    const { port } = server.address();
    process.stderr.write(`rr-proxy: http://${o.host}:${port} -> ${o.upstreams.map((u) => u.label).join(', ')}\n`);
  });
  if (tcpServer) {
    tcpServer.listen(o.tcpListen, o.host, () => {
      const { port } = tcpServer.address();
      process.stderr.write(`rr-proxy: tcp ${o.host}:${port} -> ${o.tcpUpstreams.map((u) => `${u.host}:${u.port}`).join(', ')}\n`);
    });
  }
  const stop = () => {
    server.close();
    tcpServer?.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

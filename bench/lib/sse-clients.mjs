// A child process of bench/streams.js that holds a share of the benchmark's SSE streams, so that
// parsing thousands of streams never competes with the parent's latency measurement for one event
// loop. Driven over IPC:
//   {type:'open', url, idle, active, idleMs, ticks, tickMs, concurrency, runId} → {type:'opened', ok, failed, errors}
//   {type:'mark'}    starts a measurement window (resets counters and lateness samples)
//   {type:'report'}  → {type:'report', events, lateMs (sorted), ended, bytes}
//   {type:'close'}   destroys every stream and exits
// Each stream is one JSON-RPC SendStreamingMessage on its own socket (no pooling: a stream holds it).
import http from 'node:http';

const streams = [];
let events = 0;
let lateMs = [];
let ended = 0;
let bytes = 0;

function body(runId, i, text) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'SendStreamingMessage',
    params: { message: { messageId: `${runId}-${i}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
}

/** Opens one stream; resolves once its first SSE event arrived (the task exists and is streaming). */
function openStream(url, payload) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'A2A-Version': '1.0', 'Content-Length': Buffer.byteLength(payload) },
    });
    let settled = false;
    const fail = (err) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    req.on('error', fail);
    req.setTimeout(60_000, () => req.destroy(new Error('no first event within 60 s')));
    req.on('response', (res) => {
      if (res.statusCode !== 200 || !String(res.headers['content-type']).startsWith('text/event-stream')) {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => fail(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`)));
        return;
      }
      req.setTimeout(0);
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk) => {
        bytes += chunk.length;
        buf += chunk;
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          if (!block.includes('data:')) continue; // a `: ping` comment
          if (!settled) {
            settled = true;
            resolve({ req, res });
            continue;
          }
          events++;
          const m = /tick \d+ ([\d.]+)/.exec(block);
          if (m) lateMs.push(performance.timeOrigin + performance.now() - Number(m[1]));
        }
      });
      res.on('close', () => {
        if (settled) ended++;
        fail(new Error('stream closed before its first event'));
      });
    });
    req.end(payload);
  });
}

async function openAll(o) {
  const jobs = [];
  for (let i = 0; i < o.active; i++) jobs.push(`ticks ${o.ticks} ${o.tickMs}`);
  for (let i = 0; i < o.idle; i++) jobs.push(`idle ${o.idleMs}`);
  let next = 0;
  let ok = 0;
  let failed = 0;
  const errors = [];
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      try {
        streams.push(await openStream(o.url, body(o.runId, i, jobs[i])));
        ok++;
      } catch (err) {
        failed++;
        if (errors.length < 5) errors.push(err.message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, jobs.length) }, worker));
  return { ok, failed, errors };
}

process.on('message', async (msg) => {
  if (msg.type === 'open') {
    const r = await openAll(msg);
    process.send({ type: 'opened', ...r });
  } else if (msg.type === 'mark') {
    events = 0;
    lateMs = [];
    bytes = 0;
    process.send({ type: 'marked' });
  } else if (msg.type === 'report') {
    process.send({ type: 'report', events, lateMs: lateMs.sort((a, b) => a - b), ended, bytes });
  } else if (msg.type === 'close') {
    for (const s of streams) s.req.destroy();
    process.exit(0);
  }
});

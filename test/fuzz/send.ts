/**
 * Sends a FuzzRequest as it is (node:http: fetch refuses TRACE and rewrites some headers) and
 * collects the answer. An event stream is read for a moment and then dropped: streams that stay
 * open by design (MCP listen, subscriptions) are not hangs.
 */
import http from 'node:http';
import type { Answer } from './oracle.js';
import type { FuzzRequest } from './mutations.js';

const STREAM_PEEK_MS = 300;

export function sendFuzzRequest(base: URL, agent: http.Agent, r: FuzzRequest, timeoutMs: number): Promise<Answer | 'no-answer' | 'refused'> {
  return new Promise((resolve) => {
    const body = r.body === undefined ? undefined : Buffer.from(r.body, 'base64');
    let settled = false;
    const settle = (v: Answer | 'no-answer' | 'refused') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    let req: http.ClientRequest;
    try {
      req = http.request({
        agent,
        hostname: base.hostname,
        port: base.port,
        method: r.method,
        path: r.path,
        headers: { ...r.headers, ...(body === undefined ? {} : r.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }) },
      });
    } catch {
      // a header or path the HTTP client itself will not send: nothing reached the server
      return settle('refused');
    }
    const timer = setTimeout(() => {
      req.destroy();
      settle('no-answer');
    }, timeoutMs);
    req.on('error', () => settle('refused'));
    req.on('response', (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      const chunks: Buffer[] = [];
      const finish = () => settle({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers });
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', finish);
      res.on('error', finish);
      res.on('aborted', finish);
      if (contentType.includes('text/event-stream')) {
        setTimeout(() => {
          finish();
          res.destroy();
        }, STREAM_PEEK_MS).unref();
      }
    });
    if (body !== undefined && r.chunked) {
      // two chunks, so the server sees a body that arrives in pieces
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else req.end(body);
  });
}

/**
 * Reads a request body as UTF-8 text, up to a byte limit. Past the limit (declared or streamed) the
 * rest is drained unread and the result says so, so each binding answers in its own error format.
 */
import type { IncomingMessage } from 'node:http';

export type BodyProblem = { problem: 'too-large' } | { problem: 'unreadable' };

export function readLimitedBody(req: IncomingMessage, limit: number): Promise<string | BodyProblem> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ problem: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: string | BodyProblem) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        req.resume();
        return finish({ problem: 'too-large' });
      }
      chunks.push(c);
    });
    req.on('end', () => finish(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => finish({ problem: 'unreadable' }));
  });
}

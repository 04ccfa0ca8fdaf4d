/**
 * The one body reader every HTTP face uses (A2A, MCP, the MCP compat routes, the OAuth forms, the
 * Fastify routes): UTF-8 text up to a per-request byte limit, within a server-wide budget of body
 * bytes in flight, before a per-body read deadline. A refusal is a value, not an exception, so each
 * face answers in its own error shape; `bodyRefusal()` gives the A2A error of each refusal.
 *
 * The listener attaches its `BodyPolicy` (budget and deadline) to each request it accepts
 * (`admitBody`), so the five callers need not thread it through their dependencies; a request
 * without one (a face driven directly in a unit test) is read with the byte limit only.
 */
import type { IncomingMessage } from 'node:http';
import { A2AError } from '../protocol/a2a/errors.js';

export type BodyProblem =
  | { problem: 'too-large' }
  | { problem: 'unreadable' }
  /** the server-wide budget of body bytes in flight is spent: 503 with Retry-After */
  | { problem: 'busy' }
  /** the body did not arrive within the read deadline: 408 */
  | { problem: 'timeout' };

/** Seconds a client is told to wait (Retry-After) when the body budget is spent. */
export const BODY_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Bytes of request bodies being read, server-wide. Each read reserves each chunk it buffers and
 * releases the lot once the body is read or refused, so however many uploads arrive at once, they
 * never hold more than `capacity` bytes of buffers.
 */
export class BodyBudget {
  private used = 0;
  private anonymousUsed = 0;
  /**
   * `anonymousCapacity`: the most that callers with no credential may hold together (issue 25
   * D6b). Bodies are read before a credential in them is checked only where the protocol puts it
   * there (OAuth forms) or an anonymous caller may call at all; capped, a crowd of such uploads
   * leaves the rest of the budget to authenticated callers. Absent: no share (auth mode none,
   * where every caller is anonymous).
   */
  constructor(
    readonly capacity: number,
    readonly anonymousCapacity = capacity,
  ) {}

  tryReserve(bytes: number, anonymous = false): boolean {
    if (this.used + bytes > this.capacity) return false;
    if (anonymous) {
      if (this.anonymousUsed + bytes > this.anonymousCapacity) return false;
      this.anonymousUsed += bytes;
    }
    this.used += bytes;
    return true;
  }

  release(bytes: number, anonymous = false): void {
    this.used = Math.max(0, this.used - bytes);
    if (anonymous) this.anonymousUsed = Math.max(0, this.anonymousUsed - bytes);
  }

  get inFlight(): number {
    return this.used;
  }
}

export interface BodyPolicy {
  budget: BodyBudget;
  /** the longest a body may take to arrive, from the first read */
  readTimeoutMs: number;
}

/**
 * The request's policy, kept on the request itself: a WeakMap entry per request cost an insertion
 * into its table and work for every scavenge that found the request still alive (ADR 0046).
 */
const POLICY = Symbol('agentport.bodyPolicy');
type WithPolicy = IncomingMessage & { [POLICY]?: BodyPolicy };

/** Called by the listener for each request: its bodies are read under this policy. */
export function admitBody(req: IncomingMessage, policy: BodyPolicy): void {
  (req as WithPolicy)[POLICY] = policy;
}

/** `anonymous`: the reader has no credential, and reads within the budget's anonymous share. */
export function readLimitedBody(req: IncomingMessage, limit: number, anonymous = false): Promise<string | BodyProblem> {
  const atHand = bodyAtHand(req, limit, anonymous);
  return atHand === undefined ? readStreamedBody(req, limit, anonymous) : Promise.resolve(atHand);
}

/**
 * What readLimitedBody answers at once, without waiting: a declared length over the limit, or the
 * body when it has arrived whole; undefined when it is still to be read (from the stream). The
 * edge asks it first, and waits for nothing (no promise a request) when it answers.
 */
export function bodyAtHand(req: IncomingMessage, limit: number, anonymous = false): string | BodyProblem | undefined {
  const declared = Number(req.headers['content-length']);
  const hasDeclared = req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared >= 0;
  if (hasDeclared && declared > limit) {
    req.resume();
    return { problem: 'too-large' };
  }
  // A small request's body comes in the same read as its headers: buffered whole by the time a
  // face asks for it (after an await), it is taken at once.
  const arrived = (hasDeclared && req.readableLength >= declared) || req.complete;
  if (arrived && !req.readableEnded && !req.destroyed && req.readableFlowing !== true) return readArrived(req, limit, (req as WithPolicy)[POLICY], anonymous);
  return undefined;
}

/** The body read from the stream as it comes, under the limit, the budget and the read deadline. */
function readStreamedBody(req: IncomingMessage, limit: number, anonymous: boolean): Promise<string | BodyProblem> {
  const policy = (req as WithPolicy)[POLICY];
  const declared = Number(req.headers['content-length']);
  const hasDeclared = req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared >= 0;
  const arrived = (hasDeclared && req.readableLength >= declared) || req.complete;
  let reserved = 0;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: string | BodyProblem) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      chunks.length = 0;
      if (policy) policy.budget.release(reserved, anonymous);
      reserved = 0;
      resolve(r);
    };
    const onData = (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        req.resume(); // drained unread; the face answers 413 and closes
        return finish({ problem: 'too-large' });
      }
      if (policy) {
        // What is buffered is what is reserved: a slow sender holds only the bytes it has sent, so
        // it cannot starve small requests by declaring a large Content-Length.
        if (!policy.budget.tryReserve(c.length, anonymous)) {
          req.pause();
          return finish({ problem: 'busy' });
        }
        reserved += c.length;
      }
      chunks.push(c);
    };
    const onEnd = () => {
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      finish(text);
    };
    const onError = () => finish({ problem: 'unreadable' });
    const onAborted = () => finish({ problem: 'unreadable' });
    // A body trickling in byte by byte holds its reservation and a socket: it gets a deadline. One
    // already buffered whole was read above.
    const timer =
      policy && !arrived
        ? setTimeout(() => {
            req.pause();
            finish({ problem: 'timeout' });
          }, policy.readTimeoutMs)
        : undefined;
    timer?.unref();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    if (req.readableEnded) onEnd();
  });
}

/**
 * A body the parser has already buffered whole (its declared length is in, or the message is
 * complete), taken in one synchronous read: no 'data' events, no listeners added and removed, no
 * `process.nextTick` of `resume` (issue 26, ADR 0055). The same limit and budget decide as for a
 * streamed body.
 */
function readArrived(req: IncomingMessage, limit: number, policy: BodyPolicy | undefined, anonymous: boolean): string | BodyProblem {
  const size = req.readableLength;
  if (size > limit) {
    req.resume(); // drained unread, as a streamed body over the limit is
    return { problem: 'too-large' };
  }
  if (policy && !policy.budget.tryReserve(size, anonymous)) return { problem: 'busy' };
  // `read()` gives all that is buffered. The parser's end of the message may come after it (the
  // body's last bytes and the message's end are separate callbacks); marked flowing, as reading
  // with 'data' leaves it, the stream then ends at once ('end', then destroyed) as a streamed read
  // does, and node:http's end of the answer finds the request consumed (it would `resume()` an
  // unread one: one more tick). Node's typings call the property read-only; streams have had its
  // setter since Node 9.
  const chunk: Buffer | string | null = req.read();
  (req as { readableFlowing: boolean | null }).readableFlowing = true;
  if (policy) policy.budget.release(size, anonymous);
  if (chunk === null) return '';
  return typeof chunk === 'string' ? chunk : chunk.toString('utf8');
}

/** The error of a refusal, in the A2A error table's terms (each face renders it in its own shape). */
export function bodyRefusal(p: BodyProblem, limit: number): A2AError {
  switch (p.problem) {
    case 'too-large':
      return new A2AError('PayloadTooLarge', `The request body exceeds ${limit} bytes`);
    case 'busy':
      return new A2AError('Unavailable', 'The server is receiving too many request bodies; retry shortly');
    case 'timeout':
      return new A2AError('RequestTimeout', 'The request body did not arrive in time');
    case 'unreadable':
      return new A2AError('InvalidRequest', 'The request body could not be read');
  }
}

/**
 * Headers a refusal needs besides the error body. A busy server says when to retry and keeps the
 * connection: the rest of the body is discarded as it arrives (closing under a client still
 * sending resets the connection, and the client would never see its 503). Too large or too slow:
 * the connection closes.
 */
export function bodyRefusalHeaders(p: BodyProblem): Record<string, string> {
  return p.problem === 'busy' ? { 'Retry-After': String(BODY_BUSY_RETRY_AFTER_SECONDS) } : { Connection: 'close' };
}

/**
 * What a face's `RequestContext.body()` gives for a refusal: the A2A error (its message naming the
 * byte limit of this read) and the headers the answer carries.
 */
export function bodyRefused(p: BodyProblem, limit: number): { error: A2AError; headers: Record<string, string> } {
  return { error: bodyRefusal(p, limit), headers: bodyRefusalHeaders(p) };
}

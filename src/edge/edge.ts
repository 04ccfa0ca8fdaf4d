/**
 * The one edge of the HTTP listener: every request is admitted once (`admit`), then served by the
 * first face whose `match` takes it, in registration order; the fallback face takes the rest. In
 * this order:
 *
 *   1. the request id: the client's `X-Request-Id` when well formed, else a new one;
 *   2. the body policy (byte limit, server-wide budget, read deadline), and the unread remainder
 *      of a body discarded once the answer is out;
 *   3. routing: the first face whose `match` takes the path; then on the answer the request id
 *      (unless the face writes it itself: `Face.writesRequestId`) and `Connection: close` once
 *      the listener is closing;
 *   4. the start gate (unless the face lets the request through ungated): wait for the start,
 *      or the face's `reject` with `Unavailable` when it failed;
 *   5. `serve`; what it throws is logged and answered with the face's `reject(Internal)`, or the
 *      connection is cut when the answer had begun.
 *
 * Authentication is lazy: a face asks `ctx.principal()` when it needs the caller (after its own
 * path checks, before reading a body), and it is done at most once per resource path.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { ANONYMOUS, promisedPrincipal, type Principal } from '../core/authz/principal.js';
import { uuidv7 } from '../core/ids/uuid-v7.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { admitBody, bodyAtHand, bodyRefused, readLimitedBody, type BodyPolicy } from './body.js';
import type { AnyFace, BodyRefused, EdgeLog, RequestContext } from './face.js';
import type { StartGate } from './start-gate.js';
import { PROBE_PATHS, trackUsage, usageOf } from './call-usage.js';
import type { UsageRecorder } from '../core/usage/usage-recorder.js';
import { tracingOn } from '../observability/tracing/index.js';
import { traceAuthentication, traceCall, traceRequest, traceRequestId } from './request-span.js';
import { readsAsAnonymous, startFailed } from './caller-admission.js';

/** The logger the edge binds to each request; pino's Logger fits. */
export type BaseLog = EdgeLog;

export interface EdgeOptions {
  /** in the order they are asked; the first whose `match` answers serves */
  faces: readonly AnyFace[];
  /** serves what no face took (its `match` is not asked) */
  fallback: AnyFace;
  /**
   * The caller of a request, for a resource path (RFC 8707 audience of own tokens): the caller
   * itself when it is known without waiting (Authenticator.answerFor: a kept API key's record, no
   * credential), else a promise, rejected when the caller is refused. Never throws.
   */
  authenticate: (headers: IncomingHttpHeaders, resourcePath?: string) => Principal | Promise<Principal>;
  /**
   * The one promise `authenticate` answers every caller without a credential with, fulfilled with
   * ANONYMOUS (Authenticator.anonymousAnswer): such a caller is noted in its usage record at once,
   * not by a callback a request.
   */
  anonymousAnswer?: Promise<Principal>;
  /** the configured byte limit of a body, and the listener's budget and read deadline */
  body: { limit: number; policy: BodyPolicy };
  log: BaseLog;
  gate: StartGate;
  isClosing: () => boolean;
  /**
   * Run on every admitted request before routing, for headers an answer needs whichever face
   * serves it (CORS of the `/.well-known/*` documents, which several faces serve).
   */
  decorate?: readonly ((req: IncomingMessage, res: ServerResponse, path: string) => void)[];
  /** usage records on: each call's draft is opened here and closed when its answer is out */
  usage?: UsageRecorder;
  /**
   * The public URL's path (`/agentport`), when there is one. A proxy that passes requests on with
   * the prefix (`proxy_pass http://agentport;` without a URI) sends `/agentport/mcp`: the prefix
   * is dropped before routing, so both proxy styles work (config refuses prefixes that collide
   * with the server's own paths: src/config/public-url-prefix.ts).
   */
  pathPrefix?: string;
}

const WELL_FORMED_ID = /^[\w.-]{1,64}$/;

/**
 * The contexts of requests handed to the fallback face, whose routes only see the node request
 * (Fastify's genReqId, its body parser, the route caller). The faces before it get theirs as an
 * argument, so the hot paths add nothing to this map.
 */
const admitted = new WeakMap<IncomingMessage, RequestContext>();

/** The context the edge built for this request (undefined for one it did not hand to the fallback face). */
export function contextOf(req: IncomingMessage): RequestContext | undefined {
  return admitted.get(req);
}

/** The node request listener. */
export function createEdge(o: EdgeOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = o.pathPrefix ?? '';
  const edge = (req: IncomingMessage, res: ServerResponse) => {
    const ctx = admit(req, res, o);
    const { faces } = o;
    let face: AnyFace = o.fallback;
    let route: unknown = true;
    for (let i = 0; i < faces.length; i++) {
      const r = faces[i]!.match(req, ctx.path);
      if (r !== undefined) {
        face = faces[i]!;
        route = r;
        break;
      }
    }
    // In this order on the answer: the request id (unless the face writes it), Connection, the decorations.
    if (face.writesRequestId !== true) res.setHeader('X-Request-Id', ctx.requestId);
    // Closing: the answer ends its keep-alive connection, or busy connections would keep the
    // listener from ever finishing closing under load (a SIGTERM ending in SIGKILL, chaos test).
    if (o.isClosing()) res.setHeader('Connection', 'close');
    if (o.decorate) for (const d of o.decorate) d(req, res, ctx.path);
    if (tracingOn()) traceRequestId(req, ctx.requestId);
    if (o.usage) {
      trackUsage(o.usage, req, res, face.name, ctx.path, ctx.requestId);
      if (tracingOn()) traceCall(req);
    }
    if (face === o.fallback) admitted.set(req, ctx);
    ctx.face = face;
    ctx.route = route;
    if (o.gate.open || face.ungated?.(req, route)) return run(face, req, res, ctx, route);
    o.gate.passed().then((ok) => {
      if (ok) run(face, req, res, ctx, route);
      else reject(face, req, res, ctx, startFailed(), route);
    });
  };
  // Tracing is decided per request: it starts after the listener is built (start.ts). Probes are
  // kept out of traces as they are out of the access log and usage (issue 25).
  return (req, res) => {
    if (prefix !== '') req.url = withoutPrefix(req.url ?? '/', prefix);
    if (tracingOn() && !isProbe(req.url ?? '/')) traceRequest(req, res, () => edge(req, res));
    else edge(req, res);
  };
}

function isProbe(url: string): boolean {
  const q = url.indexOf('?');
  return PROBE_PATHS.has(q < 0 ? url : url.slice(0, q));
}

/** `/agentport/mcp?x` → `/mcp?x`, `/agentport` → `/`; any other URL as it is. */
export function withoutPrefix(url: string, prefix: string): string {
  if (!url.startsWith(prefix)) return url;
  const next = url.charCodeAt(prefix.length);
  // end, '/' or '?': the prefix is a whole segment
  if (Number.isNaN(next)) return '/';
  if (next === 47) return url.slice(prefix.length);
  if (next === 63) return `/${url.slice(prefix.length)}`;
  return url;
}

/** Serves the request; what the face throws, or a promise it returns rejects with, goes to `ctx.failed`. */
function run(face: AnyFace, req: IncomingMessage, res: ServerResponse, ctx: AdmittedRequest, route: unknown): void {
  let served: Promise<void> | void;
  try {
    served = face.serve(req, res, ctx, route);
  } catch (err) {
    ctx.failed(err);
    return;
  }
  if (served) served.catch((err: unknown) => ctx.failed(err));
}

/** The face's refusal of a request the edge refuses, with the request id on it whichever face writes it. */
function reject(face: AnyFace, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, err: A2AError, route: unknown): void {
  if (face.writesRequestId === true && !res.hasHeader('X-Request-Id')) res.setHeader('X-Request-Id', ctx.requestId);
  face.reject(req, res, err, route);
}

/**
 * Builds the request context once: id, body policy; authentication stays lazy. The headers it
 * decides (the id, a closing connection) are set once the face is known (`createEdge`).
 */
export function admit(req: IncomingMessage, res: ServerResponse, o: Pick<EdgeOptions, 'authenticate' | 'anonymousAnswer' | 'body' | 'log'>): AdmittedRequest {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && WELL_FORMED_ID.test(given) ? given : uuidv7();
  admitBody(req, o.body.policy);
  // A face that stops reading a body midway (oidc-provider past its own 56 KiB limit, the body
  // budget) leaves the rest unread, and the next request on the connection would never be
  // parsed: the remainder is discarded once the answer is out (found by the fuzz suite).
  res.on('finish', discardUnreadBody);
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return new AdmittedRequest(req, res, requestId, q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1), o);
}

/** A shared listener ('finish' comes once), not a closure per request. */
function discardUnreadBody(this: ServerResponse): void {
  if (!this.req.complete) this.req.resume();
}

/**
 * A request's context, and its log too (the base logger with the request id in every line): a log
 * object of its own was one more a request, made for the JSON-RPC binding that logs only what
 * fails (issue 26, bytes allocated a request).
 */
class AdmittedRequest implements RequestContext, EdgeLog {
  /** most requests authenticate for one resource path: that one without a map */
  private firstPath?: string;
  /** the first resource path's authentication was asked */
  private asked = false;
  /** its answer as a promise: the authenticator's, or made when a face asks for one */
  private first?: Promise<Principal>;
  /** its caller, once known: at once (answered without waiting), or when `first` fulfilled */
  private caller?: Principal;
  private others?: Map<string | undefined, Promise<Principal>>;
  /** the face serving the request and its route, once routed (`failed` answers in its shape) */
  face: AnyFace | undefined = undefined;
  route: unknown = undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly requestId: string,
    readonly path: string,
    readonly query: string,
    private readonly o: Pick<EdgeOptions, 'authenticate' | 'anonymousAnswer' | 'body' | 'log'>,
  ) {}

  get log(): EdgeLog {
    return this;
  }

  failed(err: unknown): void {
    const face = this.face!;
    this.o.log.error({ err, reqId: this.requestId, face: face.name }, `unhandled error on the ${face.name} face`);
    if (!this.res.headersSent) reject(face, this.req, this.res, this, new A2AError('Internal'), this.route);
    else this.res.destroy();
  }

  debug(obj: object, msg?: string): void {
    this.o.log.debug({ ...obj, reqId: this.requestId }, msg);
  }
  info(obj: object, msg?: string): void {
    this.o.log.info({ ...obj, reqId: this.requestId }, msg);
  }
  warn(obj: object, msg?: string): void {
    this.o.log.warn({ ...obj, reqId: this.requestId }, msg);
  }
  error(obj: object, msg?: string): void {
    this.o.log.error({ ...obj, reqId: this.requestId }, msg);
  }

  principal(resourcePath?: string): Promise<Principal> {
    if (!this.asked) this.ask(resourcePath);
    if (resourcePath === this.firstPath) return (this.first ??= Promise.resolve(this.caller!));
    this.others ??= new Map();
    let p = this.others.get(resourcePath);
    if (!p) {
      p = promisedPrincipal(this.o.authenticate(this.req.headers, resourcePath));
      this.others.set(resourcePath, p);
    }
    return p;
  }

  /**
   * The first resource path's authentication. The caller of a call that never reaches the core
   * (discovery, management) is in its usage record too: noted at once when it is known at once.
   */
  private ask(resourcePath: string | undefined): void {
    this.asked = true;
    this.firstPath = resourcePath;
    const answer = tracingOn() ? traceAuthentication(this.req, () => this.o.authenticate(this.req.headers, resourcePath), this.o.anonymousAnswer) : this.o.authenticate(this.req.headers, resourcePath);
    const usage = usageOf(this.req);
    if (answer === this.o.anonymousAnswer || !(answer instanceof Promise)) {
      if (answer instanceof Promise) this.first = answer;
      this.caller = answer instanceof Promise ? ANONYMOUS : answer;
      usage?.noteCaller(this.caller);
      return;
    }
    this.first = answer;
    // Registered before any face awaits `first`: the caller is known by the time its await resumes.
    answer.then(
      (p) => {
        this.caller = p;
        usage?.noteCaller(p);
      },
      () => {},
    );
  }

  principalAtHand(resourcePath?: string): Principal | undefined {
    if (!this.asked) this.ask(resourcePath);
    // The first path's caller without a promise made for it (none is, unless a face asks `principal`).
    if (resourcePath === this.firstPath) return this.caller;
    return this.principal(resourcePath) === this.o.anonymousAnswer ? ANONYMOUS : undefined;
  }

  body(limit?: number): Promise<string | BodyRefused> {
    const max = limit === undefined ? this.o.body.limit : Math.min(limit, this.o.body.limit);
    // A caller not (or not yet) authenticated reads within the anonymous share of the budget.
    // Without a share (auth mode none: everyone is anonymous) who the caller is changes nothing,
    // and the body is read without waiting for authentication.
    const budget = this.o.body.policy.budget;
    const byCaller = budget.anonymousCapacity < budget.capacity && this.asked;
    if (byCaller && this.caller === undefined) return this.bodyOfCaller(this.first!, max);
    // A body already here (nearly every one) is answered without an async frame and its awaits.
    const atHand = this.bodyAtHand(limit);
    return atHand === undefined ? this.streamedBody(max, byCaller ? this.caller : undefined) : Promise.resolve(atHand);
  }

  bodyAtHand(limit?: number): string | BodyRefused | undefined {
    const budget = this.o.body.policy.budget;
    // Who the caller is decides the share of the budget: when it is not known yet, `body` waits for it.
    const byCaller = budget.anonymousCapacity < budget.capacity && this.asked;
    if (byCaller && this.caller === undefined) return undefined;
    const max = limit === undefined ? this.o.body.limit : Math.min(limit, this.o.body.limit);
    const read = bodyAtHand(this.req, max, readsAsAnonymous(budget, byCaller ? this.caller : undefined));
    return read === undefined || typeof read === 'string' ? read : bodyRefused(read, max);
  }

  /** The body read within the caller's share of the budget, once the caller is known. */
  private async bodyOfCaller(first: Promise<Principal>, max: number): Promise<string | BodyRefused> {
    return this.streamedBody(max, await first.catch(() => undefined));
  }

  private async streamedBody(max: number, caller: Principal | undefined): Promise<string | BodyRefused> {
    const read = await readLimitedBody(this.req, max, readsAsAnonymous(this.o.body.policy.budget, caller));
    return typeof read === 'string' ? read : bodyRefused(read, max);
  }
}

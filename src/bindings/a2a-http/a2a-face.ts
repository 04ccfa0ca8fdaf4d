/**
 * The A2A face (src/edge): JSON-RPC at `/a2a` and `/a2a/{agent}`, HTTP+JSON beneath
 * `/a2a/{agent}/`, on the edge's plain `node:http` listener. Measured, a framework in front of
 * these two routes cost ~25% of throughput (docs/benchmarks.md), so they are a face, not Fastify
 * routes. The edge admits the request (id, start gate, body policy); this face decides the agent
 * (core/authz/agent-lookup.ts), authenticates before reading the body, and answers every failure
 * in the binding's error shape (JSON-RPC, HTTP+JSON, or v0.3 HTTP+JSON).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '../../auth/authenticator.js';
import { jsonRpcError, type JsonRpcBinding } from '../a2a-jsonrpc/jsonrpc-binding.js';
import { isJsonContentType, negotiateMediaType, restErrorBody, type RestBinding } from '../a2a-rest/rest-binding.js';
import { isV03RestRequest, v03RestErrorBody } from '../a2a-legacy/v03/rest.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import { admittedAtHand, admitToAgentPath, type AgentPathAdmission } from '../../core/authz/agent-lookup.js';
import type { Principal } from '../../core/authz/principal.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import type { BodyRefused, Face, RequestContext } from '../../edge/face.js';
import { anonymousReadLimit } from '../../edge/caller-admission.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { jsonRpcHttpStatus } from '../../protocol/jsonrpc/http-status.js';

export interface A2AFaceDeps {
  registry: AgentRegistry;
  jsonrpc: JsonRpcBinding;
  rest: RestBinding;
  /** for the challenge of a refusal; the caller is authenticated by the edge (RequestContext.principal) */
  auth: Pick<Authenticator, 'challenge'>;
  /** hides agents the caller may not see (they answer like unknown ones) */
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an A2A base path, for 401 challenges */
  resourceMetadataUrl?: (agentId: string) => string;
  /** paths beneath `/a2a` that another face serves (the Novaeden task API, bindings/novaeden) */
  servedElsewhere?: (req: IncomingMessage) => boolean;
}

/** `bodyBytes`: the body's UTF-8 length, when the binding counted it from the body's parts (resultReply) */
type Reply = { status: number; headers: Record<string, string>; body?: string; bodyBytes?: number };

/** The shared endpoint's admission (no agent named): settled, waited on as an agent's is. */
const NO_AGENT: Promise<AgentPathAdmission | undefined> = Promise.resolve(undefined);

const CARD_SUFFIX = '/.well-known/agent-card.json';
/** what an A2A caller may ask a token for (issue 5: a2a:discover reads, a2a:publish writes) */
const A2A_SCOPES = 'a2a:discover a2a:publish';
/** the v0.2 card path */
const V02_CARD_SUFFIX = '/.well-known/agent.json';

/** The A2A face: JSON-RPC and HTTP+JSON beneath `/a2a`, except the cards and the Novaeden task API (served elsewhere). */
export function createA2AFace(d: A2AFaceDeps): Face<Shape> {
  return {
    name: 'a2a',
    match(req, path) {
      if (!path.startsWith('/a2a') || (path.length > 4 && path[4] !== '/')) return undefined;
      if (req.method === 'GET' && (path.endsWith(CARD_SUFFIX) || path.endsWith(V02_CARD_SUFFIX))) return undefined; // cards are Fastify's
      if (d.servedElsewhere?.(req)) return undefined;
      return shapeOf(req.method, path);
    },
    serve,
    // A JSON-RPC answer's head goes out in one writeHead with the request id (`send`); the other
    // routes set the id as they begin (their streams and handlers write their own heads).
    writesRequestId: true,
    // The edge refused the request (the server failed to start, the face threw): in the binding's
    // shape, with the HTTP status saying so (protocol/jsonrpc/http-status.ts). The edge has set the id.
    reject: (req, res, err, shape) => send(res, errorFor(shape, req, err, true)),
  };

  /**
   * Not async (issue 26, bytes a request): an async `serve` made its frame (every register), its
   * promise and an await's closures for every request, to wait one turn for the admission (the
   * body's bytes, which follow the headers in the same read, are parsed only after the request
   * event). The admission's answer is waited on by one reaction, and what follows it runs without a
   * frame of its own where the caller and the body are at hand (nearly every request), in the same
   * turns as the awaits did.
   */
  function serve(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, shape: Shape): void {
    const { path } = ctx;
    // The id goes on the answer: in the head `send` writes (JSON-RPC, where every answer is a
    // reply or an SSE stream, whose start sets it), else at once.
    const headId = shape === 'jsonrpc' ? ctx.requestId : undefined;
    if (headId === undefined) res.setHeader('X-Request-Id', ctx.requestId);
    // The agent's path (`/a2a/{agent}`, JSON-RPC's) is one segment: no list of segments is made for it.
    let segments: string[] | undefined;
    let agentId: string | undefined;
    try {
      if (path.length > 5 && path.indexOf('/', 5) < 0) agentId = decodedSegment(path.slice(5));
      else agentId = (segments = segmentsBeneathA2A(path))[0];
    } catch {
      send(res, errorFor(shape, req, new A2AError('InvalidRequest', 'The request URL is not valid'), true), headId);
      return;
    }
    const resourcePath = agentId === undefined ? '/' : resourcePathOf(path, agentId);
    // The one decision on the agent a path names (core/authz): unknown, hidden from this caller
    // (the same answer), or admitted; asked before anything agent-specific.
    // At hand on an open server: no admission frame, and no closure to authenticate with.
    const atHand: Promise<AgentPathAdmission | undefined> | undefined = agentId === undefined ? NO_AGENT : admittedAtHand(d.registry, d.policy, agentId, 'a2a');
    const admission = atHand ?? admitToAgentPath(d.registry, d.policy, agentId!, 'a2a', authenticatesFor(ctx, resourcePath));
    // Its failures go to the edge's `ctx.failed` here, not in a promise returned for the edge to
    // catch: the reaction's promise adopted the answer's chain (a job, a promise and two resolving
    // functions) and the edge's catch put a reaction of its own on it, a request (issue 26). An
    // admission at hand is settled, fulfilled: no handler of its rejection is made for it.
    admission.then(
      (admitted) => {
        try {
          const waiting = admittedCall(req, res, ctx, shape, agentId, segments, resourcePath, admitted, headId);
          if (waiting) waiting.catch(failedOf(ctx));
        } catch (e) {
          ctx.failed(e);
        }
      },
      atHand === undefined ? failedOf(ctx) : undefined,
    );
  }

  /** The request once its agent is decided (`admitted`: undefined on the shared endpoint). */
  function admittedCall(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    shape: Shape,
    agentId: string | undefined,
    segments: string[] | undefined,
    resourcePath: string,
    admitted: AgentPathAdmission | undefined,
    headId: string | undefined,
  ): Promise<void> | void {
    if (admitted?.unknown) return send(res, errorFor(shape, req, new A2AError('MethodNotFound', admitted.message)), headId);
    if (shape === 'rest' && req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') {
      return send(res, errorFor(shape, req, new A2AError('MethodNotFound', `${req.method} is not allowed on this path`)));
    }
    if (shape === 'plain') {
      return send(res, errorFor('rest', req, new A2AError('MethodNotFound', `No route for ${req.method} ${ctx.path}`)));
    }
    // Authentication is on the headers, before a byte of the body is read: a refused caller costs
    // no memory (issue 19 D6). The body is then read under the listener's budget and deadline.
    let principal: Principal | undefined;
    try {
      // Memoised: the admission above may already have authenticated the caller (a hidden agent's
      // path). The anonymous caller of an open server is known without waiting.
      principal = admitted === undefined ? undefined : ctx.principalAtHand(resourcePath);
    } catch (e) {
      return refuse(req, res, shape, e instanceof A2AError ? e : new A2AError('Unauthenticated'), agentId, headId);
    }
    if (principal === undefined) return authenticatedCall(req, res, ctx, shape, agentId, segments, resourcePath, headId);
    return callerKnown(req, res, ctx, shape, agentId, segments, principal, headId);
  }

  /** The caller not known at hand: waited for (a refusal answers). */
  async function authenticatedCall(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    shape: Shape,
    agentId: string | undefined,
    segments: string[] | undefined,
    resourcePath: string,
    headId: string | undefined,
  ): Promise<void> {
    let principal: Principal;
    try {
      principal = await ctx.principal(resourcePath);
    } catch (e) {
      return refuse(req, res, shape, e instanceof A2AError ? e : new A2AError('Unauthenticated'), agentId, headId);
    }
    return callerKnown(req, res, ctx, shape, agentId, segments, principal, headId);
  }

  /** The request with its caller known: its body read (at hand, or waited for), then served. */
  function callerKnown(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    shape: Shape,
    agentId: string | undefined,
    segments: string[] | undefined,
    principal: Principal,
    headId: string | undefined,
  ): Promise<void> | void {
    // An anonymous caller the policy will refuse whatever it sends has its body read only as far
    // as the operation that names the scope of the challenge (RFC 6750 §3) needs; a larger one is
    // refused unread. Decided as the gRPC listener decides it (edge/caller-admission.ts).
    const refusedAnyway = anonymousReadLimit(d.policy, principal);
    if (req.method !== 'POST') return served(req, res, ctx, shape, agentId, segments, principal, headId, refusedAnyway, undefined);
    const atHand = ctx.bodyAtHand(refusedAnyway?.bytes);
    if (atHand !== undefined) return served(req, res, ctx, shape, agentId, segments, principal, headId, refusedAnyway, atHand);
    return ctx.body(refusedAnyway?.bytes).then((read) => served(req, res, ctx, shape, agentId, segments, principal, headId, refusedAnyway, read));
  }

  /** The request with its body read (undefined: not a POST): refused, or handed to its binding. */
  function served(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    shape: Shape,
    agentId: string | undefined,
    segments: string[] | undefined,
    principal: Principal,
    headId: string | undefined,
    refusedAnyway: ReturnType<typeof anonymousReadLimit>,
    read: string | BodyRefused | undefined,
  ): Promise<void> | void {
    if (typeof read === 'object' && refusedAnyway) return refuse(req, res, shape, refusedAnyway.refusal, agentId, headId);
    if (typeof read === 'object') {
      const r = errorFor(shape, req, read.error, true);
      Object.assign(r.headers, read.headers);
      return send(res, r, headId);
    }
    if ((shape === 'jsonrpc' || (read !== undefined && read !== '')) && !isJsonContentType(req.headers['content-type'])) {
      return send(res, errorFor(shape, req, new A2AError('UnsupportedMediaType'), true), headId);
    }
    // No closure of these functions' (the authentication above is made by a function; the binding
    // sets the id of a stream): nothing a request to allocate for a context (issue 26, bytes a request).
    const answer =
      shape === 'jsonrpc'
        ? d.jsonrpc.handle(req, res, read ?? '', agentId, d.registry.primaryId, principal, headId, ctx.log)
        : d.rest.handle(req, res, read, agentId!, segments === undefined ? [] : segments.slice(1), new URLSearchParams(ctx.query), principal, undefined, ctx.log);
    // Nothing of these functions waits on the answer (an async `serve`'s frame waited as long as
    // the task, through every scavenge); the reply needs only `res`, the id and the context for a
    // failure (issue 26, docs/benchmarks.md alloc33).
    sendWhenAnswered(res, ctx, answer, headId);
  }

  /**
   * The caller refused, with the challenge of a 401. A function of the face, not a closure made
   * per request (issue 26: each request paid for it, and it is used only when refusing).
   */
  function refuse(req: IncomingMessage, res: ServerResponse, shape: Shape, err: A2AError, agentId: string | undefined, headId: string | undefined): void {
    const r = errorFor(shape, req, err, true);
    // An issuer whose keys cannot be fetched is our outage (503), not the caller's bad token.
    const resourceMetadata = d.resourceMetadataUrl?.(agentId ?? d.registry.primaryId);
    if (err.kind === 'Unauthenticated') r.headers['WWW-Authenticate'] = d.auth.challenge(err, { scope: A2A_SCOPES, ...(resourceMetadata ? { resourceMetadata } : {}) });
    send(res, r, headId);
  }
}

type Shape = 'jsonrpc' | 'rest' | 'plain';

function shapeOf(method: string | undefined, path: string): Shape {
  const depth = nonEmptySegments(path);
  if (method === 'POST' && depth <= 2) return 'jsonrpc';
  return depth >= 3 ? 'rest' : 'plain';
}

/** How many non-empty segments a path has (`/a2a//x/` has two), counted without splitting it: every request is routed here. */
function nonEmptySegments(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) !== SLASH && (i === 0 || path.charCodeAt(i - 1) === SLASH)) n++;
  return n;
}

const SLASH = 0x2f;

/**
 * The percent-decoded segments after `/a2a` (a path the face matched: `/a2a` or `/a2a/…`), a trailing
 * slash adding none; throws URIError on bad percent-encoding. The JSON-RPC path of an agent,
 * `/a2a/{agent}`, is one segment, decoded without splitting, and only when it has a `%` (what
 * `decodeURIComponent` gives for a text without one is that text: the call cost 1.2 k instructions).
 */
function segmentsBeneathA2A(path: string): string[] {
  if (path.length <= 5) return [];
  const rest = path.slice(5);
  const segments = rest.includes('/') ? rest.split('/').map(decodeURIComponent) : [decodedSegment(rest)];
  if (segments[segments.length - 1] === '') segments.pop();
  return segments;
}

/** One segment of a path, percent-decoded (throws URIError on a bad encoding). */
function decodedSegment(segment: string): string {
  return segment.includes('%') ? decodeURIComponent(segment) : segment;
}

/** `/a2a/{agentId}`: the path itself when it is that (the agent's JSON-RPC path, not encoded), not a new string. */
function resourcePathOf(path: string, agentId: string): string {
  return path.length === 5 + agentId.length && path.endsWith(agentId) ? path : `/a2a/${agentId}`;
}

/** The caller for `resourcePath`, asked only by an admission that needs it; made here, so `serve` captures nothing. */
function authenticatesFor(ctx: RequestContext, resourcePath: string): () => Promise<Principal> {
  return () => ctx.principal(resourcePath);
}

/** `edge`: the request failed before a JSON-RPC message was read, so the HTTP status says so too. */
function errorFor(shape: Shape, req: IncomingMessage, err: A2AError, edge = false): Reply {
  if (shape === 'jsonrpc') {
    return { status: jsonRpcHttpStatus(err, edge ? 'edge' : 'call'), headers: { 'Content-Type': 'application/json' }, body: jsonRpcError(null, err) };
  }
  const url = req.url ?? '/';
  if (isV03RestRequest(req, url.split('?')[0]!.split('/').slice(3))) {
    const { status, body } = v03RestErrorBody(err);
    return { status, headers: { 'Content-Type': 'application/json' }, body };
  }
  const { status, body } = restErrorBody(err);
  return { status, headers: { 'Content-Type': negotiateMediaType(req) }, body };
}

/** The binding's reply sent once it answers (none: the binding answered on `res` itself, a stream). */
function sendWhenAnswered(res: ServerResponse, ctx: RequestContext, answer: Promise<Reply | undefined>, requestId: string | undefined): void {
  answer.then(
    (r) => {
      try {
        if (r) send(res, r, requestId);
      } catch (e) {
        ctx.failed(e);
      }
    },
    (e: unknown) => ctx.failed(e),
  );
}

/** The edge's handling of a failure, for a promise of the uncommon paths (a caller or a body waited for). */
function failedOf(ctx: RequestContext): (e: unknown) => void {
  return (e) => ctx.failed(e);
}

/**
 * The answer with its length: without one, Node frames it chunked and writes the head, the chunk's
 * size line, the body and the last chunk as five buffers; with it, head and body go out as one
 * string (ADR 0046). The body is the same bytes either way. `requestId`: the face writes the
 * request id in this head (Face.writesRequestId); absent, it is set already.
 */
function send(res: ServerResponse, r: Reply, requestId?: string): void {
  const body = r.body ?? '';
  // One array, in the order the headers went out when each was set: id, length, then the reply's.
  const length = r.bodyBytes ?? Buffer.byteLength(body);
  res.writeHead(r.status, headArray(r.headers, length, requestId));
  res.end(body);
}

/**
 * `[X-Request-Id, id,] Content-Length, length, …the reply's headers`. A reply of one header (most
 * of them: `Content-Type`) is one literal of its exact length: grown by `push`, the array took a
 * backing store of 25 slots (issue 26, bytes allocated a request).
 */
function headArray(headers: Record<string, string>, length: number, requestId: string | undefined): (string | number)[] {
  let only: string | undefined;
  let count = 0;
  for (const name in headers) {
    only = name;
    count++;
  }
  if (count === 1) {
    const value = headers[only!]!;
    return requestId === undefined ? ['Content-Length', length, only!, value] : ['X-Request-Id', requestId, 'Content-Length', length, only!, value];
  }
  const head: (string | number)[] = requestId === undefined ? ['Content-Length', length] : ['X-Request-Id', requestId, 'Content-Length', length];
  for (const name in headers) head.push(name, headers[name]!);
  return head;
}

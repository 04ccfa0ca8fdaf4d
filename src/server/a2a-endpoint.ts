/**
 * The A2A hot path on plain `node:http`: JSON-RPC at `/a2a` and `/a2a/{agent}`, HTTP+JSON beneath
 * `/a2a/{agent}/`. Measured, a framework in front of these two routes cost ~25% of throughput
 * (docs/benchmarks.md), so they read bodies and write replies themselves; everything else (cards,
 * registry, JWKS, health) stays on Fastify. Every failure still has the binding's error shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import { jsonRpcError, type JsonRpcBinding } from '../bindings/a2a-jsonrpc/jsonrpc-binding.js';
import { isJsonContentType, negotiateMediaType, restErrorBody, type RestBinding } from '../bindings/a2a-rest/rest-binding.js';
import { isV03RestRequest, v03RestErrorBody } from '../bindings/a2a-rest/v03-rest-binding.js';
import type { AgentRegistry } from '../core/agents/agent-registry.js';
import { ANONYMOUS, type Principal } from '../core/authz/principal.js';
import type { AuthorizationPolicy } from '../core/authz/policy.js';
import { uuidv7 } from '../core/ids/uuid-v7.js';
import { A2AError } from '../protocol/a2a/errors.js';
import { unknownAgentMessage } from '../core/agents/unknown-agent.js';
import { bodyRefusal, bodyRefusalHeaders, readLimitedBody } from '../bindings/read-limited-body.js';

export interface A2AEndpointDeps {
  registry: AgentRegistry;
  jsonrpc: JsonRpcBinding;
  rest: RestBinding;
  auth: Authenticator;
  log: Logger;
  bodyLimit: number;
  /** settles once agents are registered */
  started: Promise<void>;
  /** hides agents the caller may not see (they answer like unknown ones) */
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an A2A base path, for 401 challenges */
  resourceMetadataUrl?: (agentId: string) => string;
}

type Reply = { status: number; headers: Record<string, string>; body?: string };

const CARD_SUFFIX = '/.well-known/agent-card.json';
/** what an A2A caller may ask a token for (issue 5: a2a:discover reads, a2a:publish writes) */
const A2A_SCOPES = 'a2a:discover a2a:publish';
/** How much of the body of a caller who will be refused is read: a JSON-RPC envelope, not an upload. */
const REFUSED_BODY_BYTES = 16 * 1024;
/** the v0.2 card path */
const V02_CARD_SUFFIX = '/.well-known/agent.json';

/** Returns a handler that serves A2A requests and answers false for anything else. */
export function createA2AEndpoint(d: A2AEndpointDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  let started = false;
  d.started.then(
    () => (started = true),
    () => {},
  );

  return (req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith('/a2a') || (url.length > 4 && url[4] !== '/' && url[4] !== '?')) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (req.method === 'GET' && (path.endsWith(CARD_SUFFIX) || path.endsWith(V02_CARD_SUFFIX))) return false; // cards are Fastify's
    const given = req.headers['x-request-id'];
    const reqId = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : uuidv7();
    res.setHeader('X-Request-Id', reqId);
    const log = { error: (obj: object, msg?: string) => d.log.error({ ...obj, reqId }, msg) };
    const run = () =>
      serve(req, res, path, q < 0 ? '' : url.slice(q + 1), log).catch((err) => {
        log.error({ err }, 'unhandled error on the A2A endpoint');
        if (!res.headersSent) send(res, errorFor(shapeOf(req.method, path), req, new A2AError('Internal')));
        else res.destroy();
      });
    if (started) void run();
    else d.started.then(run, () => send(res, errorFor(shapeOf(req.method, path), req, new A2AError('Unavailable', 'The server failed to start'))));
    return true;
  };

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, query: string, log: { error(obj: object, msg?: string): void }): Promise<void> {
    const shape = shapeOf(req.method, path);
    let segments: string[];
    try {
      segments = path.split('/').slice(2).map(decodeURIComponent); // drop '' and 'a2a'
    } catch {
      return send(res, errorFor(shape, req, new A2AError('InvalidRequest', 'The request URL is not valid'), true));
    }
    if (segments.length && segments[segments.length - 1] === '') segments.pop();
    const agentId = segments[0];
    const noAgent = () => send(res, errorFor(shape, req, new A2AError('MethodNotFound', unknownAgentMessage(agentId!, d.registry, d.policy))));
    if (agentId !== undefined && !d.registry.get(agentId)) return noAgent();
    // The hidden-agent rule (core/authz): before anything agent-specific, a caller who may not see
    // the agent gets exactly the answer above.
    const admitted = agentId !== undefined && d.policy ? await d.policy.admitToAgent(agentId, 'a2a', () => d.auth.authenticate(req.headers, { resourcePath: `/a2a/${agentId}` })) : undefined;
    if (admitted?.unknown) return noAgent();
    if (shape === 'rest' && req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') {
      return send(res, errorFor(shape, req, new A2AError('MethodNotFound', `${req.method} is not allowed on this path`)));
    }
    if (shape === 'plain') {
      return send(res, errorFor('rest', req, new A2AError('MethodNotFound', `No route for ${req.method} ${path}`)));
    }

    // Authentication is on the headers, before a byte of the body is read: a refused caller costs
    // no memory (issue 19 D6). The body is then read under the listener's budget and deadline.
    const refuse = (err: A2AError): void => {
      const r = errorFor(shape, req, err, true);
      // An issuer whose keys cannot be fetched is our outage (503), not the caller's bad token.
      const resourceMetadata = d.resourceMetadataUrl?.(agentId ?? d.registry.primaryId);
      if (err.kind === 'Unauthenticated') r.headers['WWW-Authenticate'] = d.auth.challenge(err, { scope: A2A_SCOPES, ...(resourceMetadata ? { resourceMetadata } : {}) });
      send(res, r);
    };
    let principal: Principal;
    try {
      // The admission above may already have authenticated the caller (a hidden agent's path).
      principal = (admitted && !admitted.unknown && admitted.principal) || (await d.auth.authenticate(req.headers, { resourcePath: agentId === undefined ? '/' : `/a2a/${agentId}` }));
    } catch (e) {
      return refuse(e instanceof A2AError ? e : new A2AError('Unauthenticated'));
    }
    // Every A2A operation needs a scope unless the policy lets anonymous callers read the extended
    // card (the TCK profile) or enforces nothing. Such a caller will be refused whatever it sends:
    // its body is read only as far as the operation that names the scope of the challenge (RFC
    // 6750 §3) needs, and a larger one is refused unread.
    const refusedAnyway = !principal.authenticated && !!d.policy?.enforcing && !d.policy.allows(ANONYMOUS, 'read-extended-card');
    const limit = refusedAnyway ? Math.min(REFUSED_BODY_BYTES, d.bodyLimit) : d.bodyLimit;
    const read = req.method === 'POST' ? await readLimitedBody(req, limit) : undefined;
    if (typeof read === 'object' && refusedAnyway) {
      return refuse(new A2AError('Unauthenticated', 'Authentication required (scope: a2a:discover or a2a:publish)'));
    }
    if (typeof read === 'object') {
      const r = errorFor(shape, req, bodyRefusal(read, d.bodyLimit), true);
      Object.assign(r.headers, bodyRefusalHeaders(read));
      return send(res, r);
    }
    const body = read;
    const hasBody = body !== undefined && body !== '';
    if ((shape === 'jsonrpc' || hasBody) && !isJsonContentType(req.headers['content-type'])) {
      return send(res, errorFor(shape, req, new A2AError('UnsupportedMediaType'), true));
    }
    if (agentId !== undefined && d.policy && !d.policy.canSeeAgent(principal, agentId)) return noAgent();
    const r =
      shape === 'jsonrpc'
        ? await d.jsonrpc.handle(req, res, body ?? '', agentId, d.registry.primaryId, principal, undefined, log)
        : await d.rest.handle(req, res, body, agentId!, segments.slice(1), new URLSearchParams(query), principal, undefined, log);
    if (r) send(res, r);
  }
}

type Shape = 'jsonrpc' | 'rest' | 'plain';

function shapeOf(method: string | undefined, path: string): Shape {
  const depth = path.split('/').filter(Boolean).length;
  if (method === 'POST' && depth <= 2) return 'jsonrpc';
  return depth >= 3 ? 'rest' : 'plain';
}

/** `edge`: the request failed before a JSON-RPC message was read, so the HTTP status says so too. */
function errorFor(shape: Shape, req: IncomingMessage, err: A2AError, edge = false): Reply {
  if (shape === 'jsonrpc') {
    return { status: edge ? err.identity.http : 200, headers: { 'Content-Type': 'application/json' }, body: jsonRpcError(null, err) };
  }
  const url = req.url ?? '/';
  if (isV03RestRequest(req, url.split('?')[0]!.split('/').slice(3))) {
    const { status, body } = v03RestErrorBody(err);
    return { status, headers: { 'Content-Type': 'application/json' }, body };
  }
  const { status, body } = restErrorBody(err);
  return { status, headers: { 'Content-Type': negotiateMediaType(req) }, body };
}

function send(res: ServerResponse, r: Reply): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body ?? '');
}


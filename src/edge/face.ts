/**
 * The contract between the one edge and the faces it serves (A2A JSON-RPC/HTTP+JSON, MCP, the MCP
 * compat routes, OAuth, the Fastify-routed discovery and management routes). The edge admits a
 * request once — request id, start gate, body policy, lazy authentication, the closing connection —
 * and hands a `RequestContext` to the first face whose `match` takes the request. A face only
 * decodes the request into core calls and encodes the answer in its own protocol's shape.
 *
 * This folder sits below `bindings/` and `auth/` (both hold faces) and above `core/`: it knows
 * principals and protocol errors, never a particular face, framework or authenticator.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../core/authz/principal.js';
import type { A2AError } from '../protocol/a2a/errors.js';

/** The logger a face writes to: bound to the request id. */
export interface EdgeLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the edge knows of one admitted request. */
export interface RequestContext {
  /** `X-Request-Id`: the client's when well formed, else a new one; already set on the response */
  readonly requestId: string;
  /** the URL path, without the query, as received (not percent-decoded) */
  readonly path: string;
  /** the query string without its `?` ('' when none) */
  readonly query: string;
  readonly log: EdgeLog;
  /**
   * The caller, authenticated on the headers at most once per resource path (memoised). Rejects
   * with an A2AError (`Unauthenticated`, or `Unavailable` when an issuer cannot be reached); the
   * face encodes it with its own challenge.
   */
  principal(resourcePath?: string): Promise<Principal>;
  /**
   * `principal` (asked, memoised, noted as it is), and the caller itself when it is known without
   * waiting: the authenticator's one answer to every caller without a credential (the anonymous
   * caller). Undefined: await `principal`. A face that needs the caller at once asks this first,
   * and waits only when it must (an await a request, issue 26).
   */
  principalAtHand(resourcePath?: string): Principal | undefined;
  /**
   * The body as UTF-8 text under the listener's limits (byte limit, server-wide budget of bytes
   * in flight, read deadline), or the refusal as an A2AError (`PayloadTooLarge`, `RequestTimeout`,
   * `Unavailable`, `InvalidRequest`) whose response headers (`Retry-After`, `Connection: close`)
   * `refusalHeaders` gives. `limit` lowers the configured byte limit for this read.
   */
  body(limit?: number): Promise<string | BodyRefused>;
  /**
   * What `body(limit)` would answer, when it is at hand: the body arrived whole with the headers
   * (nearly every small request), or a declared length over the limit. Undefined: nothing was
   * read, and `body` reads it (the two are not both asked for an answer at hand).
   */
  bodyAtHand(limit?: number): string | BodyRefused | undefined;
  /**
   * What the edge does with a promise `serve` returned that rejects: logged, answered with the
   * face's `reject(Internal)`, or the connection cut once the answer has begun. For a face that
   * waits on its own promises and returns nothing: where a chain returned for the edge to catch
   * took a promise adopted, a catch and its reaction a request (issue 26, bytes a request).
   */
  failed(err: unknown): void;
}

export interface BodyRefused {
  readonly error: A2AError;
  /** headers the answer must carry (`Retry-After` when busy, `Connection: close` when unread) */
  readonly headers: Record<string, string>;
}

/**
 * One face of the listener. `match` is called in registration order with the path; the first
 * face that returns a route (anything but undefined) serves the request.
 */
export interface Face<Route = true> {
  /** for logs and, later, usage records and metrics labels: 'a2a', 'mcp', 'mcp-compat', 'oauth', 'routes' */
  readonly name: string;
  match(req: IncomingMessage, path: string): Route | undefined;
  serve(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, route: Route): Promise<void> | void;
  /**
   * Encodes an edge refusal in this face's error shape: the server is starting or failed to
   * start (`Unavailable`), or the face threw (`Internal`; logged by the edge, never sent as text).
   */
  reject(req: IncomingMessage, res: ServerResponse, err: A2AError, route: Route): void;
  /**
   * The face puts `X-Request-Id` (RequestContext.requestId) on every answer itself, so that its
   * answer's head can go to `writeHead` in one array: a header set beforehand sends Node's
   * `writeHead` down its slow path (each header through `setHeader`, then a walk of the stored
   * ones), ~7 k instructions an answer (issue 26). The edge sets it before a refusal (`reject`).
   */
  readonly writesRequestId?: boolean;
  /** requests served by this face that the edge lets run before it admits them (CORS preflight): answered without the start gate */
  readonly ungated?: (req: IncomingMessage, route: Route) => boolean;
  /** ends open streams so the listener can close */
  close?(): Promise<void>;
}

/**
 * A face of any route type, as the edge holds them: it only hands each face back the route its
 * own `match` gave, so the route types of different faces never meet.
 */
// biome-ignore lint/suspicious/noExplicitAny: Face is invariant in Route (ungated takes it), so no other type admits every face
export type AnyFace = Face<any>;

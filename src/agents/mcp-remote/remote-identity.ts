/**
 * Which identity each request to a remote MCP server carries when `agents[].mcp.auth` is
 * `signed-identity` (ADR 0034). The MCP client keeps one session per remote, and the SDK's
 * transport calls fetch with no per-call options, so the caller of a request travels in an
 * AsyncLocalStorage set around the tool call: a `tools/call` carries the caller's JWT; the
 * session's own requests (`initialize`, `tools/list`, notifications) run outside any call and
 * carry Agentport's service identity, never the identity of whichever caller happened to
 * open the session.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../../core/authz/principal.js';
import type { CallerIdentitySigner } from '../../core/keys/caller-identity.js';
import type { SignedIdentityAuthConfig } from '../../config/config.js';

export type McpCaller = Pick<Principal, 'subject' | 'scopes' | 'usecase' | 'clientId'>;

const callerOfRequest = new AsyncLocalStorage<McpCaller | undefined>();

/** Runs `fn` so that the requests it makes to the remote are made for `caller`. */
export function asCaller<T>(caller: McpCaller | undefined, fn: () => Promise<T>): Promise<T> {
  return callerOfRequest.run(caller, fn);
}

/** Runs `fn` for no caller: what a session opened by a tool call sends is not that caller's. */
export function asService<T>(fn: () => Promise<T>): Promise<T> {
  return callerOfRequest.run(undefined, fn);
}

/** The Authorization header value of the request being made now. */
export type RequestAuthorization = () => Promise<string>;

export function signedIdentityAuthorization(auth: SignedIdentityAuthConfig, remoteUrl: string, signer: CallerIdentitySigner): RequestAuthorization {
  const audience = auth.audience ?? new URL(remoteUrl).origin;
  return async () => {
    const caller = callerOfRequest.getStore();
    const jwt = caller ? await signer.sign({ audience, caller, ttlSeconds: auth.ttlSeconds }) : await signer.signService({ audience, ttlSeconds: auth.ttlSeconds });
    return `Bearer ${jwt}`;
  };
}

/**
 * Finding out how a user authorizes Agentport at a remote MCP server (the MCP authorization
 * specification, client side): the remote's 401 challenge names its protected-resource metadata
 * (RFC 9728) and the scopes it wants; the metadata names the authorization server, whose own
 * metadata (RFC 8414, else OpenID discovery) gives the endpoints. A remote whose authorization
 * server is configured (`auth.issuer`) skips the first two steps. The client is the configured one
 * or one registered here (RFC 7591). Built on the official MCP SDK's client-side OAuth functions;
 * every request goes through the SSRF-guarded fetch with the agent's allowlist.
 */
import type { AuthorizationServerMetadata, OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import type { RemoteOAuthConfig } from '../../config/config.js';
import { mcpClientSdk } from './mcp-client-sdk.js';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What a connect needs to know of a remote; cached per remote. */
export interface RemoteAuthorizationServer {
  issuer: string;
  metadata: AuthorizationServerMetadata;
  client: OAuthClientInformationMixed;
  /** the RFC 8707 resource indicator sent with the authorization and token requests */
  resource: string;
  /** asked for at consent; absent: none named */
  scope?: string;
}

/** The remote or its authorization server could not be used; the message is safe to show. */
export class RemoteAuthorizationError extends Error {
  override readonly name = 'RemoteAuthorizationError';
}

export async function discoverRemoteAuthorizationServer(o: { url: string; auth: RemoteOAuthConfig; redirectUri: string; fetch: FetchLike; clientName: string }): Promise<RemoteAuthorizationServer> {
  const { auth } = o;
  const { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, registerClient } = await mcpClientSdk();
  let issuer = auth.issuer;
  let resource = auth.resource;
  let scope = auth.scopes?.join(' ');
  if (!issuer) {
    // An unauthenticated request: its 401 names the resource metadata and the scopes it needs.
    const probe = await o.fetch(o.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    });
    await probe.body?.cancel().catch(() => {});
    const challenge = probe.status === 401 ? extractWWWAuthenticateParams(probe) : {};
    const prm = await discoverOAuthProtectedResourceMetadata(o.url, challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}, o.fetch).catch((err: unknown) => {
      throw new RemoteAuthorizationError(`the remote's protected-resource metadata could not be read (${(err as Error).message})`);
    });
    issuer = prm.authorization_servers?.[0];
    if (!issuer) throw new RemoteAuthorizationError('the remote names no authorization server in its protected-resource metadata');
    resource ??= prm.resource;
    scope ??= challenge.scope ?? prm.scopes_supported?.join(' ');
  }
  const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: o.fetch }).catch((err: unknown) => {
    throw new RemoteAuthorizationError(`the authorization server ${issuer} could not be discovered (${(err as Error).message})`);
  });
  if (!metadata) throw new RemoteAuthorizationError(`the authorization server ${issuer} publishes no metadata`);
  let client: OAuthClientInformationMixed;
  if (auth.clientId) {
    client = { client_id: auth.clientId, ...(auth.clientSecret ? { client_secret: auth.clientSecret } : {}) };
  } else {
    if (!metadata.registration_endpoint) throw new RemoteAuthorizationError(`the authorization server ${issuer} does not register clients; configure auth.clientId`);
    client = await registerClient(issuer, {
      metadata,
      clientMetadata: { client_name: o.clientName, redirect_uris: [o.redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      ...(scope ? { scope } : {}),
      fetchFn: o.fetch,
    }).catch((err: unknown) => {
      throw new RemoteAuthorizationError(`registration at ${issuer} failed (${(err as Error).message})`);
    });
  }
  return { issuer: metadata.issuer, metadata, client, resource: resource ?? o.url, ...(scope ? { scope } : {}) };
}

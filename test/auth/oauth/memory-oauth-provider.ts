/**
 * An in-memory OAuthClientProvider for the MCP SDK client, as a desktop MCP client would implement
 * it: a public client with one loopback redirect URI, everything it is told kept in fields so a
 * test can read the authorization URL and drive the sign-in itself. It keeps the discovery state
 * the SDK asks to hold between the redirect and the callback (SEP-2352), so the callback leg uses
 * the authorization server found from the 401's `resource_metadata`.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';

export class MemoryOAuthProvider implements OAuthClientProvider {
  info: any;
  stored: any;
  discovery: any;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirect: string,
    private readonly clientName: string,
  ) {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return { client_name: this.clientName, redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: unknown) {
    this.info = i;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(t: unknown) {
    this.stored = t;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

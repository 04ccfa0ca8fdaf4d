/**
 * The MCP face's own edge checks, ahead of authentication: CORS (the preflight is answered before
 * any credential is asked for, and answers carry the headers browser clients such as MCP Inspector
 * need), the Streamable HTTP methods, and the DNS-rebinding check of Host and Origin when the
 * listener binds a loopback address.
 *
 * The SDK's own middleware (`hostHeaderValidationResponse`, `originValidationResponse`) was
 * weighed and not used: it is port-agnostic against a hostname allowlist and answers "Invalid
 * Host: x", while this check also admits the configured public host and any 127/8 address and
 * answers "Host not allowed" — clients and tests know these answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The Streamable HTTP transport's methods (besides the CORS preflight). */
export const MCP_METHODS: readonly string[] = ['GET', 'POST', 'DELETE'];
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID, X-API-Key, X-Request-Id';
const EXPOSE_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, X-Request-Id';

export function setCors(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
}

/** The CORS preflight of the MCP endpoints and of `/.well-known/*`: 204, no credential asked for. */
export function preflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(204, {
    'Access-Control-Allow-Origin': req.headers.origin ?? '*',
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ? `${ALLOW_HEADERS}, ${String(req.headers['access-control-request-headers'])}` : ALLOW_HEADERS,
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
    'Access-Control-Max-Age': '86400',
    Vary: 'Origin',
  });
  res.end();
}

/** TRACE, PUT, …: not MCP (Streamable HTTP uses GET, POST, DELETE); answered 405 with Allow (RFC 9110 §15.5.6). */
export const isMcpMethod = (method: string | undefined): boolean => MCP_METHODS.includes(method ?? '');
export const ALLOW = [...MCP_METHODS, 'OPTIONS'].join(', ');

/** Host and Origin as a request carries them (the in-process compat calls carry their caller's). */
export interface HostAndOrigin {
  host?: string | undefined;
  origin?: string | undefined;
}

/**
 * The DNS-rebinding check: with a loopback bind, the refusal's message for a request whose Host
 * or Origin is neither loopback nor the public URL's; otherwise (or when allowed) undefined.
 */
export function hostOriginCheck(publicUrl: string, bindHost: string): (h: HostAndOrigin) => string | undefined {
  const loopback = isLoopbackHost(bindHost);
  const publicOrigin = new URL(publicUrl).origin;
  const publicHost = new URL(publicUrl).host.toLowerCase();
  return ({ host: rawHost, origin }) => {
    if (loopback) {
      // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
      const host = (rawHost ?? '').toLowerCase();
      if (host !== publicHost && !isLoopbackHost(hostnameOf(host))) return 'Host not allowed';
      if (origin && origin !== 'null' && origin !== publicOrigin && !isLoopbackOrigin(origin)) return 'Origin not allowed';
      if (origin === 'null') return 'Origin not allowed';
    }
    return undefined;
  };
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const i = host.lastIndexOf(':');
  return i < 0 ? host : host.slice(0, i);
}

function isLoopbackHost(h: string): boolean {
  const host = h.toLowerCase();
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The address a sign-in attempt comes from, for the login throttle. The TCP peer, unless the peer
 * is one of `auth.oauth.trustedProxies`: then X-Forwarded-For is read from the right (each proxy
 * appends the address it saw), skipping trusted proxies, and the first other address is the
 * client. Entries left of it were written by the client itself and are never believed.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export function clientAddressOf(trustedProxies: readonly string[]): (req: IncomingMessage) => string | undefined {
  const trusted = new Set(trustedProxies.map(normalize));
  return (req) => {
    const peer = req.socket.remoteAddress === undefined ? undefined : normalize(req.socket.remoteAddress);
    if (peer === undefined || !trusted.has(peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((h) => normalize(h.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return peer; // malformed: fall back to the proxy itself rather than guess
      if (!trusted.has(hop)) return hop;
    }
    return peer;
  };
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) is 10.0.0.1. */
function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address.toLowerCase();
}

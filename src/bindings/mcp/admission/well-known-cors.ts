/**
 * CORS for the discovery documents under `/.well-known/*` (RFC 9728 and RFC 8414 metadata, agent
 * cards), which browser-based MCP clients read cross-origin before they have any credential. Two
 * halves, because the documents themselves are served elsewhere (the OAuth face, Fastify routes):
 *
 * - `wellKnownPreflight`: a face that answers the CORS preflight of any `/.well-known/*` path
 *   (ungated: no start gate, no credential). It is registered after the MCP compat face, whose
 *   `/.well-known/mcp-metadata` preflight names that route's own methods.
 * - `addWellKnownCors`: the CORS headers for any other `/.well-known/*` request, set on the
 *   response before whichever face or route serves the document.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Face } from '../../../edge/face.js';
import { preflight, setCors } from './edge-checks.js';

const isWellKnown = (path: string) => path.startsWith('/.well-known/');

export const wellKnownPreflight: Face = {
  name: 'well-known-cors',
  match: (req, path) => (req.method === 'OPTIONS' && isWellKnown(path) ? true : undefined),
  serve: (req, res) => preflight(req, res),
  // Only a preflight is ever taken, and it needs nothing from start-up.
  ungated: () => true,
  reject: (_req, res) => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  },
};

/** Sets the CORS headers of a `/.well-known/*` document's answer; other paths are left alone. */
export function addWellKnownCors(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (isWellKnown(path) && req.headers.origin) setCors(res, req.headers.origin);
}

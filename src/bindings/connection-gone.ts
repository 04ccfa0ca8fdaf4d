import type { IncomingMessage } from 'node:http';

/**
 * Whether the client of a request has closed its connection: Node's HTTP server ends the socket
 * (and destroys the request) when the client's FIN arrives before the response. A client that
 * timed out while a paused server had its request queued looks exactly like this when the server
 * resumes (issue 19 C4).
 */
export function connectionGone(req: IncomingMessage): boolean {
  const s = req.socket;
  return s.destroyed || !s.writable;
}

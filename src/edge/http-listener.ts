/**
 * The node:http server every HTTP listener of Agentport runs on: Node's own, but a stop also ends
 * the connections that never sent a byte.
 *
 * Node (20, 22) counts a connection as busy from its accept until its first request ends, so
 * `server.close()` and `closeIdleConnections()` leave a connection that was opened and never used
 * (a client's pre-opened pool socket, a port probe) to `headersTimeout`: the stop waited ~60 s for
 * it. Such a connection has nothing to answer, so it is ended with the idle ones. A connection that
 * sent part of a request is still left to the request's own deadlines.
 */
import { Server, type IncomingMessage, type RequestListener, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

class HttpListener extends Server {
  private readonly open = new Set<Socket>();

  constructor(options: ServerOptions, listener: RequestListener<typeof IncomingMessage, typeof ServerResponse>) {
    super(options, listener);
    this.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
  }

  /** Node's idle connections, and those that have received nothing (`close()` calls this too). */
  override closeIdleConnections(): void {
    super.closeIdleConnections();
    for (const socket of this.open) if (socket.bytesRead === 0) socket.destroy();
  }
}

/** `http.createServer` whose `close()` does not wait on connections that never sent a byte. */
export function createHttpListener(options: ServerOptions, listener: RequestListener<typeof IncomingMessage, typeof ServerResponse>): Server {
  return new HttpListener(options, listener);
}

/**
 * A TCP proxy in front of Redis that a test can cut and restore, to partition ONE replica from a
 * Redis that the others still reach.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './private-redis.js';

export class CutProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(targetPort: number): Promise<CutProxy> {
    const proxy = new CutProxy(await freePort(), targetPort);
    await proxy.restore();
    return proxy;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.server = server;
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
  }

  /** Drops every connection and refuses new ones until `restore`. */
  async cut(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = once(server, 'close');
    server.close();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

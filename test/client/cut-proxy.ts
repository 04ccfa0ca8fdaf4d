/**
 * A TCP proxy in front of a server that a test can use to drop every open connection (as a load
 * balancer restart or a network blip would) while still accepting new ones, and to hold new
 * connections unanswered for as long as the test wants (an outage of known length).
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class DropProxy {
  private readonly sockets = new Set<Socket>();
  /** connections accepted so far */
  connections = 0;
  private holding = false;
  private readonly held: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** `targetPort` may be a function, for a proxy started before the server it fronts (whose card names the proxy). */
  static async start(targetHost: string, targetPort: number | (() => number)): Promise<DropProxy> {
    let proxy: DropProxy | undefined;
    const server = createServer((client) => {
      proxy!.connections++;
      const forward = () => DropProxy.pipe(proxy!, client, connect(typeof targetPort === 'number' ? targetPort : targetPort(), targetHost));
      if (proxy!.holding) {
        client.pause();
        proxy!.sockets.add(client);
        client.on('close', () => proxy!.sockets.delete(client));
        client.on('error', () => client.destroy());
        proxy!.held.push(forward);
      } else forward();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy = new DropProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  private static pipe(proxy: DropProxy, client: Socket, upstream: Socket): void {
    for (const s of [client, upstream]) {
      proxy.sockets.add(s);
      s.on('close', () => proxy.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  /** New connections are accepted but not forwarded (their requests wait) until `release()`. */
  hold(): void {
    this.holding = true;
  }

  /** Forwards the held connections, and new ones from now on. */
  release(): void {
    this.holding = false;
    for (const forward of this.held.splice(0)) forward();
  }

  /** Destroys every open connection; new ones are still accepted. */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise((r) => this.server.close(r));
  }
}

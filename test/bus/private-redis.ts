/**
 * A redis-server of a test's own, on a free port, that the test may kill and restart. The shared
 * Redis on 6379 is never touched: other suites run against it at the same time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { freePort } from '../support/private-services.js';
import { sleep } from './wait.js';

/** Below the ephemeral range and reserved across test processes (test/support/private-services.ts). */
export { freePort };

/** One PING over a raw socket; true on +PONG. */
export function pingRedis(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export class PrivateRedis {
  private proc: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  /** Starts redis-server on this port (again); resolves once it answers PING. */
  async restart(): Promise<void> {
    if (this.proc) throw new Error('already running');
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' });
    this.proc = proc;
    proc.once('exit', () => {
      if (this.proc === proc) this.proc = undefined;
    });
    const deadline = Date.now() + 5000;
    while (!(await pingRedis(this.port))) {
      if (!this.proc) throw new Error(`redis-server on port ${this.port} exited at start`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer PING`);
      await sleep(20);
    }
  }

  /** SIGKILL: no goodbye to the clients, as in a crash. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
  }
}

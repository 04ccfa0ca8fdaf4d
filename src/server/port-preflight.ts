/**
 * Before anything opens: is every configured port free? Each listener is opened at a different
 * point of the start (gRPC early, HTTP after the app is built), so a taken port was reported one
 * at a time: fix gRPC, restart, learn that HTTP is taken too. Trying each fixed port first lets
 * one StartFailure name all of them. A port taken between this check and the real listen is still
 * reported by that listen (listenFailure).
 */
import { createServer } from 'node:net';
import type { Config } from '../config/index.js';
import { errnoCode, listenFailure, StartFailure } from './start-failure.js';

interface Wanted {
  listener: 'HTTP' | 'gRPC';
  host: string;
  port: number;
  flag: string;
}

/** Whether `port` on `host` can be bound now (closed again at once). */
function tryBind(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Throws one StartFailure naming every configured HTTP/gRPC port already in use. Without
 * `single`, one taken port is left to its listener's own failure (the server, which has the
 * listener at hand); with it (`serve` before it imports the server: start-preflight.ts) one
 * taken port is named here, in the words that listener would use (listenFailure).
 */
export async function checkPortsFree(config: Config, opts: { single?: boolean } = {}): Promise<void> {
  const wanted: Wanted[] = [];
  if (config.server.port !== 0) wanted.push({ listener: 'HTTP', host: config.server.host, port: config.server.port, flag: '--port (server.port)' });
  if (config.server.grpc.enabled && config.server.grpc.port !== 0) wanted.push({ listener: 'gRPC', host: config.server.grpc.host, port: config.server.grpc.port, flag: '--grpc-port (server.grpc.port)' });
  const fewest = opts.single ? 1 : 2;
  if (wanted.length < fewest) return; // one listener: its own listen says it, with the same words
  const errors = await Promise.all(wanted.map((w) => tryBind(w.host, w.port)));
  const taken = wanted.filter((_, i) => errnoCode(errors[i]) === 'EADDRINUSE');
  if (taken.length < fewest) return; // none, or one: the listener's own failure names it
  if (taken.length === 1) {
    const [only] = taken as [Wanted];
    throw listenFailure(only.listener, only.host, only.port, errors[wanted.indexOf(only)]);
  }
  const subject = taken.map((w) => `the ${w.listener} port ${w.port} on ${w.host}`).join(' and ');
  const flags = taken.map((w) => w.flag).join(' and ');
  throw new StartFailure(subject, 'are already in use by other processes', `stop those processes, or choose other ports with ${flags}; 0 picks any free port`, 'environment', { cause: errors.find(Boolean) });
}

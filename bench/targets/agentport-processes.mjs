// Agentport on several processes over one embedded SQLite database: what issue 18 asks to measure
// before asserting that one event loop is the bound. node:cluster forks N workers; each runs the
// ordinary `agentport serve` (same arguments) and its listen() is shared through the primary, which
// hands connections round-robin. Every worker opens the same SQLite file in WAL mode: writers take
// turns on the write lock (busy_timeout), readers never wait.
//
// This is a measuring rig, not a supported deployment: each worker has its own in-process bus (a
// stream on one worker does not see a task run by another) and runs start-up recovery as if it
// owned the store alone. Blocking SendMessage, where the waiter and the executor share a worker,
// is exactly what it can measure.
//
// Usage: node bench/targets/agentport-processes.mjs --workers N <agentport serve arguments…>
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const at = args.indexOf('--workers');
const workers = at >= 0 ? Number(args.splice(at, 2)[1]) : 2;

if (cluster.isPrimary) {
  cluster.setupPrimary({ exec: fileURLToPath(new URL('../../bin/agentport.js', import.meta.url)), args });
  // One worker first, so the database is created and migrated once before the others open it.
  const first = cluster.fork();
  first.once('listening', () => {
    for (let i = 1; i < workers; i++) cluster.fork();
  });
  cluster.on('exit', (_w, code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') {
      console.error(`a worker exited (code ${code}, signal ${signal}); stopping`);
      process.exit(1);
    }
  });
  const stop = () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// One Agentport server for a bench that measures it from inside (a CPU profile, its stalls):
// started with the given arguments, stopped when the bench exits, and awaited until a request
// of the workload answers 200 — a loaded machine may take a minute to start it.
import { spawn } from 'node:child_process';
import { sleep } from './net.mjs';

/**
 * `agentport serve`'s arguments as the benches run it: durable SQLite in `dataDir`, no gRPC port
 * taken, authentication off unless `auth` says otherwise, an optional config file.
 */
export function serveArgs({ entry, port, dataDir, auth = 'none', config }) {
  return [entry, 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dataDir, '--auth', auth, ...(config ? ['--config', config] : [])];
}

/**
 * Starts `node <args>` in `cwd` and resolves once `url` answers the workload's check request.
 * `stdout`: a file descriptor for the server's standard output (default: discarded).
 */
export async function startBenchServer({ args, cwd, env, url, headers, workload, stdout = 'ignore' }) {
  const server = spawn(process.execPath, args, { cwd, stdio: ['ignore', stdout, 'pipe'], env: { ...process.env, NODE_ENV: 'production', ...env } });
  let stderr = '';
  server.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const stop = () => server.exitCode === null && server.kill('SIGTERM');
  process.on('exit', stop);
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited: ${stderr.trim()}`);
    try {
      const res = await fetch(url, { method: 'POST', headers, body: `${workload.bodyPrefix}check${workload.bodySuffix}` });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      return { server, stop };
    } catch (err) {
      if (i > 600) throw err;
      await sleep(100);
    }
  }
}

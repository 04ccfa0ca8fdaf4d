#!/usr/bin/env node
// The cost of bearer-token verification on the blocking echo: `npm run build`, then
// `node bench/auth-token.js [--duration S] [--connections N] [--rounds N]`.
//
// Two Agentport servers (child processes, SQLite default) run the same blocking SendMessage echo
// over JSON-RPC: one with `--auth none`, one with authentication required and every request
// carrying an Agentport-issued access token (ES256 at+jwt, audience /a2a/echo, scope
// a2a:publish), so each request pays signature verification, the audience check and the
// revocation lookup. Runs alternate (none, token, none, token, …) so machine noise hits both;
// the report is the median req/s of each and their ratio.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAutocannon } from './lib/load.mjs';
import { freePort } from './lib/net.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const DURATION = arg('duration', 10);
const CONNECTIONS = arg('connections', 32);
const ROUNDS = arg('rounds', 5);

const BODY = {
  headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
  bodyPrefix: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"',
  bodySuffix: '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}',
};

async function startServer(auth) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `agentport-bench-auth-${auth}-`));
  const child = spawn(process.execPath, ['bin/agentport.js', 'serve', '--port', String(port), '--grpc-port', '0', '--data-dir', dataDir, '--auth', auth], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, dataDir, child, port };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`server (${auth}) exited: ${stderr.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server (${auth}) did not become ready: ${stderr.slice(-500)}`);
}

async function stop(s) {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
  rmSync(s.dataDir, { recursive: true, force: true });
}

/** A token exactly like the authorization server issues, signed by the server's own key. */
async function tokenFor(s) {
  const { KeyStore } = await import(path.join(ROOT, 'dist/core/keys/key-store.js'));
  const { issueAccessToken } = await import(path.join(ROOT, 'dist/auth/access-tokens.js'));
  return issueAccessToken(new KeyStore({ dataDir: s.dataDir }), {
    issuer: s.url,
    audience: `${s.url}/a2a/echo`,
    subject: 'bench-user',
    scopes: ['a2a:publish', 'a2a:discover'],
    clientId: 'bench-client',
    ttlSeconds: 3600,
  });
}

async function check(s, headers) {
  const res = await fetch(`${s.url}/a2a/echo`, { method: 'POST', headers: { ...BODY.headers, ...headers }, body: `${BODY.bodyPrefix}check${BODY.bodySuffix}` });
  const body = await res.json();
  if (res.status !== 200 || body?.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`verification failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const none = await startServer('none');
const secured = await startServer('required');
try {
  const token = await tokenFor(secured);
  const auth = { Authorization: `Bearer ${token}` };
  await check(none, {});
  await check(secured, auth);
  const unauth = await fetch(`${secured.url}/a2a/echo`, { method: 'POST', headers: BODY.headers, body: `${BODY.bodyPrefix}x${BODY.bodySuffix}` });
  if (unauth.status !== 401) throw new Error(`the secured server answered ${unauth.status} without a token`);

  const results = { none: [], token: [] };
  // Warm-up, not recorded: JIT, SQLite page cache, the verified-token cache.
  for (const [s, headers] of [
    [none, {}],
    [secured, auth],
  ]) {
    await runAutocannon({ url: `${s.url}/a2a/echo`, connections: CONNECTIONS, durationS: 3, headers: { ...BODY.headers, ...headers }, bodyPrefix: BODY.bodyPrefix, bodySuffix: BODY.bodySuffix, runId: 'warm' });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, s, headers] of [
      ['none', none, {}],
      ['token', secured, auth],
    ]) {
      const r = await runAutocannon({
        url: `${s.url}/a2a/echo`,
        connections: CONNECTIONS,
        durationS: DURATION,
        headers: { ...BODY.headers, ...headers },
        bodyPrefix: BODY.bodyPrefix,
        bodySuffix: BODY.bodySuffix,
        runId: `${name}${round}`,
      });
      if (r.errorsTotal) throw new Error(`${name}: ${r.errorsTotal} errors (${JSON.stringify(r.errors)})`);
      results[name].push(r.rps);
      process.stdout.write(`round ${round + 1} ${name.padEnd(5)} ${r.rps.toFixed(0)} req/s  p50 ${r.latencyMs.p50.toFixed(2)} ms  p99 ${r.latencyMs.p99.toFixed(2)} ms\n`);
    }
  }
  const n = median(results.none);
  const t = median(results.token);
  // Each round's pair ran back to back, so its ratio is least affected by other load on the machine.
  const ratios = results.token.map((x, i) => x / results.none[i]);
  process.stdout.write(`\nblocking echo (JSON-RPC, ${CONNECTIONS} connections, ${DURATION}s x ${ROUNDS} rounds, median):\n`);
  process.stdout.write(`  auth none:          ${n.toFixed(0)} req/s\n`);
  process.stdout.write(`  Agentport token:    ${t.toFixed(0)} req/s\n`);
  process.stdout.write(`  token / none:       ${(t / n).toFixed(3)} (medians); per round ${ratios.map((r) => r.toFixed(3)).join(' ')}, median ${median(ratios).toFixed(3)}\n`);
} finally {
  await stop(none);
  await stop(secured);
}

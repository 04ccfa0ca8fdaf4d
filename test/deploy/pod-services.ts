/**
 * deploy/compose.yaml's `postgres` and `redis` services for test/deploy/image.test.ts: the
 * machine's own PostgreSQL and Redis (Debian's packages: the compose file asks for PostgreSQL 16
 * and Redis 7 images, which no registry here serves), run in the pod's network namespace on the
 * ports compose gives them (5432, 6379), from the run's temp dir. As compose's postgres image
 * does: a superuser with a password (scram-sha-256 over TCP) and the database created.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { postgresBinDir, run } from './podman.js';

export interface PodService {
  /** Output so far, for failure messages. */
  output(): string;
  /** SIGTERM (PostgreSQL: smart shutdown, then SIGQUIT after 10 s), resolves on exit. */
  stop(): Promise<void>;
}

function start(netnsPid: number, cwd: string, command: string[]): PodService {
  const child: ChildProcess = spawn('nsenter', [`--net=/proc/${netnsPid}/ns/net`, ...command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => (out = (out + b.toString('utf8')).slice(-10_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // PostgreSQL: fast shutdown; Redis: shutdown
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

const asUser = (user: string, command: string[]) => ['setpriv', `--reuid=${user}`, `--regid=${user}`, '--init-groups', ...command];

async function uidGid(user: string): Promise<[number, number]> {
  const [u, g] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return [Number(u.stdout.trim()), Number(g.stdout.trim())];
}

export async function startPostgres(netnsPid: number, dir: string, db: { user: string; password: string; database: string }): Promise<PodService> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no /usr/lib/postgresql/*/bin/postgres');
  const home = path.join(dir, 'postgres');
  mkdirSync(home);
  const [uid, gid] = await uidGid('postgres');
  chownSync(home, uid, gid);
  const pwfile = path.join(home, 'pw');
  writeFileSync(pwfile, `${db.password}\n`);
  chownSync(pwfile, uid, gid);
  const data = path.join(home, 'data');
  const initdb = await run(
    'setpriv',
    asUser('postgres', [path.join(bin, 'initdb'), '-D', data, '-U', db.user, `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions']).slice(1),
  );
  if (initdb.code !== 0) throw new Error(`initdb: ${initdb.stdout}${initdb.stderr}`);
  const pg = start(
    netnsPid,
    home,
    asUser('postgres', [path.join(bin, 'postgres'), '-D', data, '-c', 'listen_addresses=127.0.0.1', '-c', 'port=5432', '-c', `unix_socket_directories=${home}`, '-c', 'shared_buffers=32MB']),
  );
  // The Unix socket is a file in `home`: reachable from the test's own namespace.
  const deadline = Date.now() + 30_000;
  while ((await run(path.join(bin, 'pg_isready'), ['-q', '-h', home, '-p', '5432'])).code !== 0) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL did not start:\n${pg.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const created = await run('setpriv', asUser('postgres', [path.join(bin, 'psql'), '-h', home, '-p', '5432', '-U', db.user, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE "${db.database}"`]).slice(1));
  if (created.code !== 0) throw new Error(`CREATE DATABASE: ${created.stdout}${created.stderr}`);
  return pg;
}

export async function startRedis(netnsPid: number, dir: string): Promise<PodService> {
  const home = path.join(dir, 'redis');
  mkdirSync(home);
  const [uid, gid] = await uidGid('redis');
  chownSync(home, uid, gid);
  const redis = start(netnsPid, home, asUser('redis', ['redis-server', '--port', '6379', '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', home, '--daemonize', 'no']));
  const deadline = Date.now() + 30_000;
  while (!redis.output().includes('Ready to accept connections')) {
    if (Date.now() > deadline) throw new Error(`Redis did not start:\n${redis.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return redis;
}

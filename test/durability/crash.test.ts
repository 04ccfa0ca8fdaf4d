/**
 * Durability under kill -9: the real CLI (`node bin/agentport.js serve`) as a child process takes a
 * load of blocking SendMessage calls, half of them with an inline push config whose webhook answers
 * 503, and is SIGKILLed mid-load. After a restart on the same data dir, every task the server
 * ACKNOWLEDGED (a 200 with a task) must be there, COMPLETED, with its artifact and an intact event
 * log, and the push deliveries that were still pending must go out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { readSse } from '../support/a2a-payloads.js';
import { freePort } from '../support/private-services.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/agentport.js');

const CLIENTS = 32;
const LOAD_MS = 1_500;
const PUSH_WAIT_MS = 30_000;

// ---------------------------------------------------------------- helpers

// Ports from freePort() (test/support/private-services.ts): below the ephemeral range, reserved
// across the test processes running in parallel.

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnServer(configFile: string, dataDir: string, port: number, grpcPort: number): Child {
  const env = { ...process.env };
  delete env.AGENTPORT_CONFIG;
  const proc = spawn(process.execPath, [bin, 'serve', '--config', configFile, '--port', String(port), '--grpc-port', String(grpcPort), '--data-dir', dataDir], {
    cwd: path.dirname(configFile),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    proc.on('exit', (code) => resolve(code));
    proc.on('error', (err) => {
      keep(Buffer.from(`spawn failed: ${err.message}\n`));
      resolve(-1);
    });
  });
  return { proc, output: () => out, exited };
}

async function waitReady(base: string, child: Child, timeoutMs = 20_000): Promise<void> {
  let dead = false;
  void child.exited.then(() => (dead = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead) throw new Error(`server exited during start-up:\n${child.output()}`);
    try {
      const res = await fetch(`${base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`server not ready after ${timeoutMs} ms:\n${child.output()}`);
}

async function killHard(child: Child | undefined): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGKILL');
  await child.exited;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** For a failure message: what the store still holds for tasks whose pushes never arrived. */
async function outboxDiagnosis(dbFile: string, taskIds: string[]): Promise<string> {
  try {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(dbFile, { readonly: true, fileMustExist: true });
    try {
      const now = Date.now();
      const lines: string[] = [];
      for (const id of taskIds.slice(0, 8)) {
        const configs = (db.prepare('select count(*) as n from push_configs where task_id = ?').get(id) as { n: number }).n;
        const rows = db.prepare('select id, seq, attempts, next_attempt_at, lease_until, last_error from push_outbox where task_id = ? order by id').all(id) as Array<{
          id: number;
          seq: number;
          attempts: number;
          next_attempt_at: number;
          lease_until: number | null;
          last_error: string | null;
        }>;
        const desc = rows.map(
          (r) =>
            `row ${r.id} seq ${r.seq}: attempts ${r.attempts}, next attempt in ${Math.round((Number(r.next_attempt_at) - now) / 1000)} s, ` +
            `lease ${r.lease_until === null ? 'none' : `expires in ${Math.round((Number(r.lease_until) - now) / 1000)} s`}, last error ${r.last_error}`,
        );
        lines.push(`  task ${id} (${configs} push config(s)): ${desc.length ? desc.join('; ') : 'no outbox rows'}`);
      }
      return lines.join('\n');
    } finally {
      db.close();
    }
  } catch (err) {
    return `  (could not read the outbox: ${err instanceof Error ? err.message : String(err)})`;
  }
}

// ---------------------------------------------------------------- the webhook receiver

interface Delivery {
  path: string;
  token?: string;
  body: any;
}

class Receiver {
  status = 503;
  /** deliveries answered 2xx, i.e. the ones the server counts as delivered */
  readonly accepted: Delivery[] = [];
  refused = 0;
  /** task id → the COMPLETED statusUpdate was accepted */
  readonly completed = new Set<string>();
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = this.status;
      if (status >= 200 && status < 300) {
        let body: any;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        const token = req.headers['x-a2a-notification-token'];
        this.accepted.push({ path: req.url ?? '', token: typeof token === 'string' ? token : undefined, body });
        const su = body?.statusUpdate;
        if (su?.status?.state === 'TASK_STATE_COMPLETED' && typeof su.taskId === 'string') this.completed.add(su.taskId);
      } else {
        this.refused++;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try later');
    });
  });

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const addr = this.server.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

// ---------------------------------------------------------------- the test

interface Ack {
  taskId: string;
  contextId: string;
  text: string;
  push: boolean;
  ackState: string;
}

// Twice: the task commits on the event loop's connection, and on the commit thread (ADR 0062),
// where a commit is acknowledged once the thread's COMMIT has returned.
for (const commitThread of [false, true]) {
  describe(`kill -9 during a load of blocking sends${commitThread ? ' (commit thread)' : ''}`, () => {
    let dir: string;
    let dataDir: string;
    let configFile: string;
    let port: number;
    let grpcPort: number;
    let base: string;
    let receiver: Receiver;
    let receiverPort: number;
    let first: Child | undefined;
    let second: Child | undefined;

    beforeAll(async () => {
      // The child runs dist/: built when missing or older than src/.
      requireBuilt('dist/cli/main.js', 'dist/server/start.js');
      dir = await mkdtemp(path.join(tmpdir(), 'agentport-crash-'));
      dataDir = path.join(dir, 'data');
      configFile = path.join(dir, 'agentport.yaml');
      receiver = new Receiver();
      receiverPort = await receiver.listen();
      // JSON is YAML.
      await writeFile(
        configFile,
        JSON.stringify({
          server: { host: '127.0.0.1', logLevel: 'error' },
          limits: { blockingSendTimeoutMs: 20_000 },
          push: { allowHttp: true, allowlist: ['127.0.0.1'] },
          auth: { mode: 'none' },
          ...(commitThread ? { storage: { driver: 'sqlite', commitThread: true } } : {}),
        }),
      );
      port = await freePort();
      grpcPort = await freePort();
      base = `http://127.0.0.1:${port}`;
    }, 180_000);

    afterAll(async () => {
      await killHard(first);
      await killHard(second);
      await receiver?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('keeps every acknowledged task, its event log and its pending push deliveries', async () => {
      const t0 = Date.now();
      const timings: Record<string, number> = {};
      const mark = (name: string) => (timings[name] = Date.now() - t0);

      first = spawnServer(configFile, dataDir, port, grpcPort);
      await waitReady(base, first);
      mark('firstReady');

      // ---- load: 32 clients in a loop, half with an inline push config, until the kill
      const acks: Ack[] = [];
      let sent = 0;
      let failedAfterKill = 0;
      const unexpected: string[] = [];
      let killed = false;
      const client = async (c: number) => {
        const push = c % 2 === 0;
        for (let i = 0; !killed; i++) {
          const text = `c${c}-n${i}-${Math.random().toString(36).slice(2, 8)}`;
          const params: Record<string, unknown> = {
            message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
          };
          if (push) {
            params.configuration = {
              taskPushNotificationConfig: { url: `http://127.0.0.1:${receiverPort}/hook/${c}`, token: `tok-${c}` },
            };
          }
          sent++;
          let res: Response;
          let body: any;
          try {
            res = await fetch(`${base}/a2a/echo`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
              body: JSON.stringify({ jsonrpc: '2.0', id: `${c}-${i}`, method: 'SendMessage', params }),
            });
            body = await res.json();
          } catch {
            // the connection died with the server: not acknowledged
            if (!killed) unexpected.push(`c${c}: request failed before the kill`);
            failedAfterKill++;
            return;
          }
          const task = body?.result?.task;
          if (res.status === 200 && task && typeof task.id === 'string') {
            acks.push({ taskId: task.id, contextId: task.contextId, text, push, ackState: task.status?.state });
          } else if (!killed) {
            unexpected.push(`c${c}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
          }
        }
      };
      const loadStart = Date.now();
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
      await sleep(LOAD_MS);
      killed = true;
      first.proc.kill('SIGKILL');
      const exitCode = await first.exited;
      mark('killed');
      await Promise.all(clients);
      const loadMs = Date.now() - loadStart;
      expect(exitCode).toBeNull(); // died by signal
      expect(first.proc.signalCode).toBe('SIGKILL');
      expect(unexpected.slice(0, 5)).toEqual([]);
      expect(acks.length).toBeGreaterThan(CLIENTS); // the load actually ran
      expect(acks.every((a) => a.ackState === 'TASK_STATE_COMPLETED')).toBe(true);
      expect(new Set(acks.map((a) => a.taskId)).size).toBe(acks.length);
      const pushAcks = acks.filter((a) => a.push);
      expect(pushAcks.length).toBeGreaterThan(0);
      const refusedBeforeRestart = receiver.refused;

      // ---- restart on the same data dir; the receiver now accepts
      receiver.status = 200;
      second = spawnServer(configFile, dataDir, port, grpcPort);
      await waitReady(base, second);
      mark('secondReady');

      // ---- every acknowledged task: GetTask, then its whole event log
      const problems: string[] = [];
      await pool(acks, 32, async (a) => {
        const res = await fetch(`${base}/a2a/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: a.taskId } }),
        });
        const body: any = await res.json();
        const task = body.result;
        if (!task) return void problems.push(`${a.taskId}: GetTask failed: ${JSON.stringify(body).slice(0, 300)}`);
        if (task.status?.state !== 'TASK_STATE_COMPLETED') problems.push(`${a.taskId}: state ${task.status?.state}`);
        if (task.contextId !== a.contextId) problems.push(`${a.taskId}: contextId changed`);
        const parts = (task.artifacts ?? []).flatMap((x: any) => x.parts ?? []);
        if (JSON.stringify(parts) !== JSON.stringify([{ text: a.text }])) problems.push(`${a.taskId}: artifacts ${JSON.stringify(task.artifacts)}`);

        const sse = await fetch(`${base}/a2a/echo/tasks/${encodeURIComponent(a.taskId)}:subscribe`, {
          method: 'POST',
          headers: { 'a2a-version': '1.0', 'last-event-id': '0' },
        });
        if (sse.status !== 200 || !sse.headers.get('content-type')?.startsWith('text/event-stream')) {
          return void problems.push(`${a.taskId}: subscribe HTTP ${sse.status} ${(await sse.text()).slice(0, 300)}`);
        }
        const events = await readSse(sse);
        const seqs = events.map((e) => Number(e.id));
        const expectedSeqs = events.map((_, i) => i + 1);
        if (events.length < 2 || JSON.stringify(seqs) !== JSON.stringify(expectedSeqs)) {
          return void problems.push(`${a.taskId}: event seqs ${JSON.stringify(seqs)}`);
        }
        if (events.some((e) => e.event === 'error')) problems.push(`${a.taskId}: error event in the log`);
        const firstEv = events[0]!.data;
        if (firstEv?.task?.id !== a.taskId) problems.push(`${a.taskId}: first event is not the task: ${JSON.stringify(firstEv).slice(0, 200)}`);
        const lastEv = events[events.length - 1]!.data;
        if (lastEv?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED' || lastEv.statusUpdate.taskId !== a.taskId) {
          problems.push(`${a.taskId}: last event is not the COMPLETED status: ${JSON.stringify(lastEv).slice(0, 200)}`);
        }
        const artifactEvents = events.filter((e) => e.data?.artifactUpdate);
        const logged = artifactEvents.flatMap((e) => e.data.artifactUpdate.artifact?.parts ?? []);
        if (JSON.stringify(logged) !== JSON.stringify([{ text: a.text }])) problems.push(`${a.taskId}: artifact events ${JSON.stringify(logged)}`);
      });
      mark('verified');
      expect(problems.slice(0, 10), `${problems.length} of ${acks.length} acknowledged tasks are damaged`).toEqual([]);

      // ---- pending push deliveries go out after the restart
      const deadline = Date.now() + PUSH_WAIT_MS;
      const missing = () => pushAcks.filter((a) => !receiver.completed.has(a.taskId));
      while (missing().length > 0 && Date.now() < deadline) await sleep(100);
      mark('pushesDone');
      const stillMissing = missing();
      // eslint-disable-next-line no-console
      console.log(
        `crash test: ${sent} sends, ${acks.length} acknowledged (${pushAcks.length} with push), ${failedAfterKill} cut by the kill; ` +
          `${refusedBeforeRestart} deliveries refused (503) before the kill, ${receiver.accepted.length} accepted after restart; ` +
          `load ${loadMs} ms; timings ${JSON.stringify(timings)}`,
      );
      const diagnosis = stillMissing.length
        ? await outboxDiagnosis(
            path.join(dataDir, 'agentport.db'),
            stillMissing.map((a) => a.taskId),
          )
        : '';
      expect(
        stillMissing.map((a) => a.taskId).slice(0, 10),
        `${stillMissing.length} of ${pushAcks.length} acknowledged push tasks got no COMPLETED delivery within ${PUSH_WAIT_MS} ms after restart; their outbox rows:\n${diagnosis}`,
      ).toEqual([]);

      // The deliveries carry the config's token, went to the right hook, and arrive in task order.
      const byTask = new Map<string, Delivery[]>();
      for (const d of receiver.accepted) {
        const b = d.body ?? {};
        const taskId = b.task?.id ?? b.statusUpdate?.taskId ?? b.artifactUpdate?.taskId;
        if (typeof taskId !== 'string') continue;
        byTask.set(taskId, [...(byTask.get(taskId) ?? []), d]);
      }
      const pushProblems: string[] = [];
      for (const a of pushAcks) {
        const ds = byTask.get(a.taskId) ?? [];
        const c = /^c(\d+)-/.exec(a.text)?.[1];
        if (ds.some((d) => d.path !== `/hook/${c}` || d.token !== `tok-${c}`)) pushProblems.push(`${a.taskId}: wrong hook or token`);
        // Per-task order (the store hands out a task's rows oldest first): the COMPLETED status is the last thing pushed.
        const last = ds[ds.length - 1]?.body;
        if (last?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') pushProblems.push(`${a.taskId}: last delivery is ${JSON.stringify(last).slice(0, 150)}`);
      }
      for (const a of acks.filter((x) => !x.push)) if (byTask.has(a.taskId)) pushProblems.push(`${a.taskId}: pushed without a push config`);
      expect(pushProblems.slice(0, 10)).toEqual([]);
      expect(Date.now() - t0).toBeLessThan(60_000);
    }, 90_000);
  });
}

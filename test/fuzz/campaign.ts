/**
 * One fuzz campaign against a real server (the CLI as a child process, authentication on): N HTTP
 * inputs over every face and M gRPC inputs, a few in flight at a time, each judged by oracle.ts;
 * then the process must still be up and answering, with its resident memory bounded. Returns
 * the figures and every finding, so a run reports all it found rather than the first failure.
 */
import http from 'node:http';
import fc from 'fast-check';
import { CHILD_KEY, startChildServer, type ChildServer } from '../support/child-server.js';
import { corpus } from './corpus.js';
import { GrpcFuzzer, grpcInput, grpcSeeds } from './grpc-fuzz.js';
import { fuzzRequest } from './mutations.js';
import { judge, type Finding } from './oracle.js';
import { sendFuzzRequest } from './send.js';

export interface CampaignOptions {
  httpInputs: number;
  grpcInputs: number;
  seed: number;
  concurrency?: number;
  /** an answer slower than this is a finding */
  answerWithinMs?: number;
  /** `none`: every request reaches the handlers with no credential at all (the local-experiments mode) */
  authMode?: 'required' | 'none';
}

export interface CampaignReport {
  authMode: 'required' | 'none';
  seed: number;
  httpInputs: number;
  grpcInputs: number;
  /** inputs the HTTP client could not even send (not counted as tried) */
  unsendable: number;
  /** connections the server closed without an answer (Node's own 400s for unparseable requests count here) */
  closedWithoutAnswer: number;
  byStatus: Record<string, number>;
  /** per seed face: HTTP statuses seen */
  byFace: Record<string, Record<string, number>>;
  findings: Finding[];
  fiveXx: number;
  crashed: boolean;
  rssStartMiB: number;
  rssPeakMiB: number;
  rssEndMiB: number;
  elapsedMs: number;
}

async function firstTaskId(base: string): Promise<string> {
  const res = await fetch(`${base}/a2a/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': CHILD_KEY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'fuzz-seed', role: 'ROLE_USER', parts: [{ text: 'seed' }] } } }),
  });
  const body = (await res.json()) as { result: { task: { id: string } } };
  return body.result.task.id;
}

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export async function runCampaign(o: CampaignOptions): Promise<CampaignReport> {
  const started = Date.now();
  const authMode = o.authMode ?? 'required';
  const server: ChildServer = await startChildServer({ limits: { bodyBytes: '1MiB', bodyBytesInFlight: '64MiB', bodyReadTimeoutMs: 10_000 }, auth: { mode: authMode } });
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency ?? 4 });
  const base = new URL(server.base);
  const within = o.answerWithinMs ?? 10_000;
  const findings: Finding[] = [];
  const byStatus: Record<string, number> = {};
  const byFace: Record<string, Record<string, number>> = {};
  let unsendable = 0;
  let closedWithoutAnswer = 0;
  const rssStart = server.rss();
  let rssPeak = rssStart;
  const sampler = setInterval(() => {
    if (server.alive()) rssPeak = Math.max(rssPeak, server.rss());
  }, 100);
  try {
    const taskId = await firstTaskId(server.base);
    const requests = fc.sample(fuzzRequest(corpus(taskId), CHILD_KEY), { numRuns: o.httpInputs, seed: o.seed });
    // what was sent just before, for a request that hangs (the cause may be an earlier one on its connection)
    const recent: string[] = [];
    await pool(requests, o.concurrency ?? 4, async (r) => {
      if (!server.alive()) return;
      recent.push(`${r.method} ${r.path} [${r.mutations.join('; ')}]`);
      if (recent.length > 12) recent.shift();
      const before = recent.slice(0, -1).join('\n    ');
      const a = await sendFuzzRequest(base, agent, r, within);
      if (a === 'refused') {
        if (server.alive()) closedWithoutAnswer++;
        return;
      }
      if (a === 'no-answer') {
        findings.push({ kind: 'no-answer', detail: `no answer within ${within} ms; sent just before:\n    ${before}`, request: r });
        return;
      }
      byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      const face = (byFace[r.face] ??= {});
      face[a.status] = (face[a.status] ?? 0) + 1;
      findings.push(...judge(r, a));
    });
    // a request the client library refused to build never reached the server
    unsendable = o.httpInputs - Object.values(byStatus).reduce((n, c) => n + c, 0) - closedWithoutAnswer - findings.filter((f) => f.kind === 'no-answer').length;

    const fuzzer = new GrpcFuzzer(server.grpc, CHILD_KEY);
    try {
      const inputs = fc.sample(grpcInput(grpcSeeds(taskId)), { numRuns: o.grpcInputs, seed: o.seed });
      await pool(inputs, o.concurrency ?? 4, async (input) => {
        if (server.alive()) findings.push(...(await fuzzer.call(input, within)));
      });
    } finally {
      fuzzer.close();
    }

    const crashed = !server.alive();
    if (!crashed) {
      const health = await fetch(`${server.base}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (health !== 200) findings.push({ kind: 'crash', detail: `/healthz answered ${health} after the campaign`, request: { grpc: '-', bytes: '' } });
    } else {
      findings.push({ kind: 'crash', detail: `the server exited:\n${server.output().slice(-2000)}`, request: { grpc: '-', bytes: '' } });
    }
    const rssEnd = crashed ? 0 : server.rss();
    const MiB = 1024 * 1024;
    return {
      authMode,
      seed: o.seed,
      httpInputs: o.httpInputs,
      grpcInputs: o.grpcInputs,
      unsendable,
      closedWithoutAnswer,
      byStatus,
      byFace,
      findings,
      fiveXx: findings.filter((f) => f.kind === '5xx' || f.kind === 'grpc-internal').length,
      crashed,
      rssStartMiB: Math.round(rssStart / MiB),
      rssPeakMiB: Math.round(rssPeak / MiB),
      rssEndMiB: Math.round(rssEnd / MiB),
      elapsedMs: Date.now() - started,
    };
  } finally {
    clearInterval(sampler);
    agent.destroy();
    await server.stop();
  }
}

/** A finding as one readable paragraph, with what replays it. */
export function describeFinding(f: Finding): string {
  const r = f.request;
  const what =
    'grpc' in r
      ? `gRPC ${r.grpc} bytes(base64)=${r.bytes.slice(0, 200)}`
      : `${r.method} ${r.path} from "${r.origin}" after [${r.mutations.join('; ')}] headers=${JSON.stringify(r.headers)} body=${JSON.stringify(
          Buffer.from(r.body ?? '', 'base64')
            .toString('utf8')
            .slice(0, 800),
        )}`;
  return `${f.kind} (${f.detail}) status=${f.status ?? '-'}\n  request: ${what}\n  answer: ${(f.excerpt ?? '').slice(0, 300)}`;
}

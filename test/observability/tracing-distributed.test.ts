/**
 * Traces across replicas (issue 14 "Done means"): two replicas of the real CLI on shared PostgreSQL
 * and Redis export spans over OTLP/HTTP to a receiver in this process. One trace follows a task: the
 * client's `traceparent` on a SendMessage to A, the task streamed from B, the push delivery, and — in
 * a second trace — a remote-agent call whose remote (another Agentport) continues the same trace;
 * an MCP tools/call continues the trace its `_meta.traceparent` names.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_AGENT, dropSchema, ensureBuilt, startCluster, uniqueName, waitFor, withFailureLogs, type Cluster, type Replica } from '../support/cluster.js';
import { startReceiver, type Receiver } from '../core/push/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribe, userMessage } from '../distributed/a2a-client.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const PG_URL = process.env.AGENTPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SERVER = 2;
const CLIENT = 3;

let otlp: OtlpReceiver;
let hooks: Receiver;
let upstream: TestServer;
let cluster: Cluster;
let A: Replica;
let B: Replica;
let dir: string;
const schema = uniqueName('trace');
const prefix = uniqueName('trace');

/** A fresh client span context: trace id, span id and its `traceparent` (sampled). */
function clientContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function jsonRpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as any;
  if (!body.result) throw new Error(`${method}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 400)}`);
  return body.result;
}

/** Waits until a span matching `pick` has been exported. */
async function spanWhere(what: string, pick: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  return waitFor(() => otlp.spans.find(pick), {
    timeoutMs: 15_000,
    what: `exported span: ${what}`,
    detail: () => `exported: ${otlp.spans.map((s) => `${s.instance ?? s.service}:${s.name}@${s.traceId.slice(0, 6)}`).join(', ')}`,
  });
}

const byId = (id: string | undefined) => otlp.spans.find((s) => s.spanId === id);

/** The span's ancestors, nearest first, as far as they were exported. */
function ancestors(s: ReceivedSpan): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (let p = byId(s.parentSpanId); p; p = byId(p.parentSpanId)) out.push(p);
  return out;
}

/** Waits until `ancestor` shows among the span's exported ancestors (spans of one trace arrive in several batches). */
async function expectAncestor(s: ReceivedSpan, ancestor: ReceivedSpan | ((a: ReceivedSpan) => boolean), what: string): Promise<void> {
  const match = typeof ancestor === 'function' ? ancestor : (a: ReceivedSpan) => a.spanId === ancestor.spanId;
  await waitFor(() => ancestors(s).some(match), {
    timeoutMs: 15_000,
    what: `${what} among the ancestors of ${s.name}`,
    detail: () =>
      `ancestors: ${ancestors(s)
        .map((a) => a.name)
        .join(' < ')}`,
  });
}

describe('traces across replicas, agents, push and MCP', () => {
  beforeAll(async () => {
    ensureBuilt();
    otlp = await startOtlpReceiver();
    hooks = await startReceiver();
    const tracing = { enabled: true, endpoint: otlp.endpoint, exportDelay: 50 };
    // The remote agent: another Agentport (in this process), tracing into the same receiver.
    upstream = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], auth: { mode: 'none' }, tracing: { ...tracing, serviceName: 'upstream' } });
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-trace-'));
    cluster = await startCluster(['A', 'B'], {
      postgresUrl: PG_URL,
      schema,
      redisUrl: REDIS_URL,
      prefix,
      agentLog: path.join(dir, 'agent.log'),
      extraConfig: {
        tracing,
        agents: [
          { id: 'echo', builtin: 'echo' },
          { id: 'work', module: CLUSTER_AGENT },
          { id: 'remote', remote: { cardUrl: `${upstream.http}/a2a/echo`, allowlist: ['127.0.0.1'] } },
        ],
      },
    });
    [A, B] = [cluster.get('A'), cluster.get('B')];
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await upstream?.stop();
    await dropSchema(PG_URL, schema).catch(() => undefined);
    await hooks?.close();
    await otlp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const withLogs = (fn: () => Promise<void>) => withFailureLogs({ cluster: () => cluster, replicaTail: 8_000 }, fn);

  it('one trace: SendMessage on A with a client traceparent, the task streamed from B, its push delivery', () =>
    withLogs(async () => {
      const client = clientContext();
      const task = (
        await jsonRpc(
          A.url('work'),
          'SendMessage',
          { message: userMessage('slow 8'), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hooks.url('/traced') } } },
          { traceparent: client.traceparent },
        )
      ).task;
      // B serves the stream; its request carries no trace context of its own.
      const onB = await subscribe(B, 'work', task.id);
      await onB.done;
      expect(onB.events.length).toBeGreaterThan(1);

      // A's request span continues the client's span.
      const request = await spanWhere('SendMessage on A', (s) => s.instance === 'A' && s.kind === SERVER && s.traceId === client.traceId);
      expect(request.name).toBe('SendMessage');
      expect(request.parentSpanId).toBe(client.spanId);
      expect(request.attributes['agentport.task.id']).toBe(task.id);
      // It is the binding's span; under it: authentication, the core operation, the agent's run, the store commits.
      expect(request.attributes['agentport.binding']).toBe('a2a-jsonrpc/1.0');
      const core = await spanWhere('core SendMessage', (s) => s.traceId === client.traceId && s.name === 'core SendMessage');
      await expectAncestor(core, request, 'request');
      const agentRun = await spanWhere('invoke_agent work', (s) => s.traceId === client.traceId && s.name === 'invoke_agent work');
      await expectAncestor(agentRun, core, 'core');
      const commit = await spanWhere('store.commit', (s) => s.traceId === client.traceId && s.name === 'store.commit' && s.instance === 'A');
      await expectAncestor(commit, request, 'request');
      const auth = await spanWhere('authenticate', (s) => s.traceId === client.traceId && s.name === 'authenticate' && s.instance === 'A');
      await expectAncestor(auth, request, 'the request span');

      // The stream on B is in the task's trace, under the span the task was created in, and links to B's own request.
      const stream = await spanWhere('task.stream on B', (s) => s.instance === 'B' && s.name === 'task.stream');
      expect(stream.traceId).toBe(client.traceId);
      expect(stream.parentSpanId).toBe(core.spanId);
      const subscribeOnB = await spanWhere('SubscribeToTask on B', (s) => s.instance === 'B' && s.kind === SERVER && s.name === 'SubscribeToTask');
      expect(subscribeOnB.traceId).not.toBe(client.traceId);
      expect(stream.links.map((l) => l.traceId)).toEqual([subscribeOnB.traceId]);
      const linkedOnB = await spanWhere('the span task.stream links to', (s) => s.spanId === stream.links[0]!.spanId);
      await expectAncestor(linkedOnB, subscribeOnB, 'SubscribeToTask on B');

      // The push delivery too, whichever replica sent it; the webhook request carries its span.
      const push = await spanWhere('push.deliver', (s) => s.name === 'push.deliver' && s.attributes['agentport.task.id'] === task.id);
      expect(push.traceId).toBe(client.traceId);
      expect(push.parentSpanId).toBe(core.spanId);
      expect(push.kind).toBe(CLIENT);
      const delivered = hooks.requests.filter((r) => r.url === '/traced');
      expect(delivered.length).toBeGreaterThan(0);
      const pushedWith = delivered.map((r) => String(r.headers.traceparent));
      expect(pushedWith).toContain(`00-${client.traceId}-${push.spanId}-01`);
      for (const tp of pushedWith) expect(tp.split('-')[1]).toBe(client.traceId);
    }));

  it("a follow-up sent to B for a task A runs is forwarded in the sender's trace, linked to the task's", () =>
    withLogs(async () => {
      const origin = clientContext();
      const task = (await jsonRpc(A.url('work'), 'SendMessage', { message: userMessage('ask') }, { traceparent: origin.traceparent })).task;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const followUp = clientContext();
      await jsonRpc(B.url('work'), 'SendMessage', { message: userMessage('answer 42', { taskId: task.id, contextId: task.contextId }) }, { traceparent: followUp.traceparent });
      const forwarded = await spanWhere('task.forwarded on A', (s) => s.name === 'task.forwarded' && s.attributes['agentport.task.id'] === task.id);
      expect(forwarded.instance).toBe('A');
      // Caused by B's request: in its trace, under B's spans; pointing back to the trace the task began in.
      expect(forwarded.traceId).toBe(followUp.traceId);
      const cause = await spanWhere('the forwarding span on B', (s) => s.spanId === forwarded.parentSpanId);
      expect(cause.instance).toBe('B');
      expect(forwarded.links.map((l) => l.traceId)).toEqual([origin.traceId]);
      const run = await spanWhere('the follow-up run on A', (s) => s.name === 'invoke_agent work' && s.instance === 'A' && s.traceId === followUp.traceId);
      await expectAncestor(run, forwarded, 'forwarded');
    }));

  it('a remote-agent call continues the trace on the remote Agentport', () =>
    withLogs(async () => {
      const client = clientContext();
      const result = await jsonRpc(B.url('remote'), 'SendMessage', { message: userMessage('hello remote') }, { traceparent: client.traceparent });
      expect(result.task?.status?.state).toBe('TASK_STATE_COMPLETED');
      const request = await spanWhere('SendMessage on B', (s) => s.instance === 'B' && s.kind === SERVER && s.traceId === client.traceId);
      expect(request.parentSpanId).toBe(client.spanId);
      // B's outbound call to the remote: an HTTP client span under the agent's run.
      const outbound = await spanWhere('client call to the remote', (s) => s.instance === 'B' && s.kind === CLIENT && s.traceId === client.traceId && String(s.attributes['url.full']).startsWith(upstream.http));
      await expectAncestor(outbound, (a) => a.name === 'invoke_agent remote', 'invoke_agent remote');
      // The remote's request span is that client span's child, in the same trace.
      const remote = await spanWhere('request span on the remote', (s) => s.service === 'upstream' && s.kind === SERVER && s.parentSpanId === outbound.spanId);
      expect(remote.traceId).toBe(client.traceId);
      expect(remote.name).toMatch(/^Send(Streaming)?Message$/);
    }));

  it('an MCP tools/call continues the trace in its _meta.traceparent', () =>
    withLogs(async () => {
      const client = clientContext();
      const res = await fetch(`${A.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'traced tool' }, _meta: { traceparent: client.traceparent } } }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const tool = await spanWhere('tools/call echo_echo', (s) => s.traceId === client.traceId && s.kind === SERVER && s.name === 'tools/call echo_echo');
      expect(tool.parentSpanId).toBe(client.spanId);
      expect(tool.attributes['mcp.method.name']).toBe('tools/call');
      expect(tool.attributes['gen_ai.tool.name']).toBe('echo_echo');
      // It links into the HTTP request's own trace (the request carried no traceparent header).
      expect(tool.links).toHaveLength(1);
      const linked = await spanWhere('the span tools/call links to', (s) => s.spanId === tool.links[0]!.spanId);
      const httpRequest = await spanWhere('the HTTP request span', (s) => s.kind === SERVER && [linked, ...ancestors(linked)].includes(s));
      expect(httpRequest?.name).toBe('tools/call echo_echo');
      expect(httpRequest?.traceId).not.toBe(client.traceId);
      const run = await spanWhere('invoke_agent echo', (s) => s.traceId === client.traceId && s.name === 'invoke_agent echo');
      await expectAncestor(run, tool, 'tool');
    }));
});

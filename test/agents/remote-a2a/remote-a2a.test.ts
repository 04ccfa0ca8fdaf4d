/**
 * Remote A2A agents (`agents[].remote`): an Agentport ("front") serves agents that live on other
 * A2A servers — another Agentport and a server built from @a2a-js/sdk — and the client reaches them
 * through the front on every binding. Events are relayed as they happen, input-required round
 * trips reach the same remote task, cancel reaches the remote, and a remote that is down, silent or
 * not an allowed destination fails the task with a clear reason instead of hanging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, textMessage, type Binding } from '../../../src/client/index.js';
import { startA2aJsServer, type A2aJsServer } from '../../client/a2a-js-server.js';
import { artifactTexts, collect, PROBE_MODULE, states } from '../../client/support.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { freePort } from '../../support/private-services.js';

let upstream: TestServer;
let sdk: A2aJsServer;
let front: TestServer;

/** A loopback port nothing listens on, reserved so no parallel test file binds it meanwhile. */
const closedPort = freePort;

beforeAll(async () => {
  upstream = await startTestServer({ agents: [{ id: 'probe', module: PROBE_MODULE }], auth: { mode: 'none' } });
  sdk = await startA2aJsServer();
  const allow = { allowlist: ['127.0.0.1'] };
  front = await startTestServer({
    agents: [
      { id: 'proxied', remote: { cardUrl: `${upstream.http}/a2a/probe`, ...allow } },
      { id: 'proxied-sdk', remote: { cardUrl: sdk.cardUrl, ...allow } },
      { id: 'proxied-sdk-v03', remote: { cardUrl: sdk.cardUrl, protocolVersions: ['0.3'], ...allow } },
      { id: 'impatient', remote: { cardUrl: `${upstream.http}/a2a/probe`, ...allow, idleTimeoutMs: 300 } },
      { id: 'blocked', remote: { cardUrl: `${upstream.http}/a2a/probe` } },
      { id: 'down', remote: { cardUrl: `http://127.0.0.1:${await closedPort()}/a2a/gone`, ...allow } },
    ],
    auth: { mode: 'none' },
  });
});
afterAll(async () => {
  await front?.stop();
  await sdk?.stop();
  await upstream?.stop();
});

const via = (agent: string, binding: Binding = 'JSONRPC') => A2AClient.connect(`${front.http}/a2a/${agent}`, { bindings: [binding] });

describe('a remote Agentport agent behind the front', () => {
  it('takes its card: name, description and skills', async () => {
    const c = await via('proxied');
    expect(c.card.name).toBe('Probe');
    expect(c.card.skills.map((s) => s.id)).toEqual(['probe']);
    expect(c.card.supportedInterfaces[0]!.url).toBe(`${front.http}/a2a/proxied`);
  });

  it.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('relays a streamed task on %s, artifacts in order, as they happen', async (binding) => {
    const c = await via('proxied', binding);
    try {
      const seen: number[] = [];
      const started = Date.now();
      const events = [];
      for await (const ev of c.sendStreamingMessage({ message: textMessage('ticks 3 150') })) {
        events.push(ev);
        if ('artifactUpdate' in ev.response) seen.push(Date.now() - started);
      }
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1', 'tick-2']);
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
      // relayed live, not all at the end: the first tick arrives well before the last
      expect(seen[2]! - seen[0]!).toBeGreaterThan(200);
    } finally {
      c.close();
    }
  });

  it('relays failure with the remote reason', async () => {
    const c = await via('proxied');
    const r = await c.sendMessage({ message: textMessage('fail out of paper') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(r.task.status.message?.parts[0]?.text).toContain('out of paper');
  });

  it('an input-required answer goes to the same remote task', async () => {
    const c = await via('proxied', 'HTTP+JSON');
    const asked = await c.sendMessage({ message: textMessage('input') });
    if (!('task' in asked)) throw new Error('expected a task');
    expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await c.sendMessage({ message: textMessage('forty-two', { taskId: asked.task.id }) });
    if (!('task' in answered)) throw new Error('expected a task');
    expect(answered.task.id).toBe(asked.task.id);
    expect(answered.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.task.artifacts?.at(-1)?.parts[0]?.text).toBe('forty-two');
    // on the remote it was one task too: the answer continued it
    const remote = await A2AClient.connect(`${upstream.http}/a2a/probe`);
    const remoteTasks = (await remote.listTasks({ status: 'TASK_STATE_COMPLETED' })).tasks;
    const continued = await Promise.all(remoteTasks.map((t) => remote.getTask({ id: t.id })));
    const userTexts = (t: (typeof continued)[number]) => (t.history ?? []).filter((m) => m.role === 'ROLE_USER').map((m) => m.parts[0]?.text);
    expect(continued.filter((t) => userTexts(t).join('|') === 'input|forty-two')).toHaveLength(1);
  });

  it('cancel on the front cancels the remote task', async () => {
    const remote = await A2AClient.connect(`${upstream.http}/a2a/probe`);
    const before = (await remote.listTasks({ status: 'TASK_STATE_CANCELED' })).totalSize;
    const c = await via('proxied', 'GRPC');
    try {
      const sent = await c.sendMessage({ message: textMessage('hold'), configuration: { returnImmediately: true } });
      if (!('task' in sent)) throw new Error('expected a task');
      await new Promise((r) => setTimeout(r, 300));
      expect((await c.cancelTask({ id: sent.task.id })).status.state).toBe('TASK_STATE_CANCELED');
      const until = Date.now() + 5000;
      while ((await remote.listTasks({ status: 'TASK_STATE_CANCELED' })).totalSize === before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect((await remote.listTasks({ status: 'TASK_STATE_CANCELED' })).totalSize).toBe(before + 1);
    } finally {
      c.close();
    }
  });
});

describe('a remote @a2a-js/sdk agent behind the front', () => {
  it.each<Binding>(['JSONRPC', 'GRPC'])('streams through on %s', async (binding) => {
    const c = await via('proxied-sdk', binding);
    try {
      const events = await collect(c.sendStreamingMessage({ message: textMessage('ticks 2 20') }));
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1']);
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
  });
});

describe('a remote @a2a-js/sdk agent reached over its v0.3 interfaces (remote.protocolVersions)', () => {
  it.each<Binding>(['JSONRPC', 'HTTP+JSON'])('streams through on %s, speaking v0.3 JSON-RPC to the remote', async (binding) => {
    const before = sdk.seen.length;
    const c = await via('proxied-sdk-v03', binding);
    try {
      const events = await collect(c.sendStreamingMessage({ message: textMessage('ticks 2 20') }));
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1']);
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      c.close();
    }
    // the card's first v0.3 interface is its JSON-RPC one; no v1.0 request reached the remote
    const calls = sdk.seen.slice(before);
    expect(calls).toContain('POST /a2a/jsonrpc 0.3');
    expect(calls.filter((l) => l.endsWith(' 1.0'))).toEqual([]);
  });
});

describe('remotes that cannot answer never hang a task', () => {
  it('a silent remote fails the task after idleTimeoutMs and is canceled there', async () => {
    const c = await via('impatient');
    const started = Date.now();
    const r = await c.sendMessage({ message: textMessage('hold') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(r.task.status.message?.parts[0]?.text).toMatch(/did not answer in time/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a remote that is down: the server starts, tasks fail saying the remote is unreachable, without its configured URL (issue 19)', async () => {
    const c = await via('down');
    const r = await c.sendMessage({ message: textMessage('hello') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(r.task.status.message?.parts[0]?.text).toBe('the remote agent is unreachable');
    expect(JSON.stringify(r.task)).not.toMatch(/127\.0\.0\.1|\/a2a\/gone|ECONNREFUSED/);
  });

  it('a loopback remote without an allowlist entry is refused by the SSRF guard', async () => {
    const c = await via('blocked');
    const r = await c.sendMessage({ message: textMessage('hello') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_FAILED');
    expect(r.task.status.message?.parts[0]?.text).toMatch(/not an allowed destination|unreachable/);
    expect(r.task.status.message?.parts[0]?.text).not.toMatch(/\n\s+at /); // no stack trace
    expect(JSON.stringify(r.task)).not.toMatch(/127\.0\.0\.1|\/a2a\/probe/); // nor the configured URL
  });
});

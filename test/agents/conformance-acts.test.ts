/**
 * `npm run serve:acts`: the shipped `agentport.acts.yaml` profile started as a real server, driven
 * the way ACTS (the A2A Conformance Test Suite, A2A repository tests/acts/*.acts.yaml) drives its
 * System Under Test: messageIds are UUIDs, behaviour is chosen by the first part's text (ACTS §11.2),
 * and authentication is on (401 without a credential, 403 with an insufficient one, 200 with the
 * valid one). Expected states are those of the ACTS test files named in each test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { readSse, rpc } from '../support/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VALID = 'acts-valid-token-for-this-test-0123456789';
const INSUFFICIENT = 'acts-insufficient-token-for-this-test-0123';

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

describe('serve:acts profile (agentport.acts.yaml) under ACTS-style calls', () => {
  let server: RunningServer;
  let dataDir: string;
  let agent: string;
  const auth = (key = VALID) => ({ authorization: `Bearer ${key}` });
  const send = (text: string, extra: Record<string, unknown> = {}) => rpc(agent, 'SendMessage', { message: { ...message(text), ...extra } }, auth());

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-acts-'));
    const env = { PORT: '0', GRPC_PORT: '0', AGENTPORT_DATA_DIR: dataDir, ACTS_AUTH_TOKEN: VALID, ACTS_INSUFFICIENT_AUTH_TOKEN: INSUFFICIENT };
    server = await startServer(loadConfig({ file: path.join(root, 'agentport.acts.yaml'), env, cwd: root, overrides: { logLevel: 'error' } }));
    agent = `${server.urls.http}/a2a/conformance`;
  });
  afterAll(async () => {
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('SEC-AUTH: 401 with a challenge without a credential, 403 with an insufficient one, 200 with the valid one', async () => {
    const params = { message: message('tck-complete-task auth') };
    const missing = await rpc(agent, 'SendMessage', params);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(missing.body.error).toBeDefined();
    const insufficient = await rpc(agent, 'SendMessage', { message: message('tck-complete-task auth') }, auth(INSUFFICIENT));
    expect(insufficient.status).toBe(403);
    expect(insufficient.body.error).toBeDefined();
    const valid = await rpc(agent, 'SendMessage', { message: message('tck-complete-task auth') }, auth());
    expect(valid.status).toBe(200);
    expect(valid.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // GetTask without a credential (SEC-AUTH-004)
    expect((await rpc(agent, 'GetTask', { id: '00000000-0000-0000-0000-000000000000' })).status).toBe(401);
  });

  it('SEC-EXTCARD: the extended card (REST) is 401 without a credential, 403 with an insufficient one, 200 with the valid one', async () => {
    const get = (headers: Record<string, string> = {}) => fetch(`${agent}/extendedAgentCard`, { headers: { accept: 'application/json', 'a2a-version': '1.0', ...headers } });
    expect((await get()).status).toBe(401);
    expect((await get(auth(INSUFFICIENT))).status).toBe(403);
    const ok = await get(auth());
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { name: string }).name).toBeTruthy();
  });

  it('CORE-MULTI-001: tck-multi-turn stays INPUT_REQUIRED for plain follow-ups and completes on "done"', async () => {
    const t1 = await send('tck-multi-turn start conversation');
    expect(t1.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { id: taskId, contextId } = t1.body.result.task;
    const t2 = await send('here is more input', { taskId, contextId });
    expect(t2.body.result.task).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    const t3 = await send('done', { taskId });
    expect(t3.body.result.task).toMatchObject({ id: taskId, contextId, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('CORE-FAIL-001, SEC-AUTH-005, CORE-SEND: tck-task-failure FAILED with a message; tck-auth-required AUTH_REQUIRED with a message; complete, message, artifacts', async () => {
    const failed = (await send('tck-task-failure trigger error')).body.result.task;
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.status.message).toBeDefined();
    const authRequired = (await send('tck-auth-required trigger auth')).body.result.task;
    expect(authRequired.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(authRequired.status.message).toBeDefined();
    expect((await send('tck-complete-task hello world')).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await send('tck-message-response hello')).body.result.message.role).toBe('ROLE_AGENT');
    const file = (await send('tck-artifact-file-url x')).body.result.task;
    expect(file.artifacts[0].parts[0].url).toMatch(/^https:/);
    expect((await send('tck-artifact-data x')).body.result.task.artifacts[0].parts[0].data).toEqual({ key: 'value', count: 42 });
  });

  it('CORE-CANCEL-001: tck-cancel stays WORKING until CancelTask, then CANCELED', async () => {
    const started = (await rpc(agent, 'SendMessage', { message: message('tck-cancel start'), configuration: { returnImmediately: true } }, auth())).body.result.task;
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(started.status.state);
    const canceled = await rpc(agent, 'CancelTask', { id: started.id }, auth());
    expect(canceled.body.result).toMatchObject({ id: started.id, status: { state: 'TASK_STATE_CANCELED' } });
  });

  it('STREAM-SSE-001/002/003: tck-stream-basic streams working → artifact → completed; tck-stream-chunked sends its artifact in chunks', async () => {
    const stream = async (text: string) => {
      const res = await fetch(agent, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream', ...auth() },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: message(text) } }),
      });
      return (await readSse(res)).map((e) => e.data.result);
    };
    const basic = await stream('tck-stream-basic generate output');
    expect(basic.some((r) => r.artifactUpdate)).toBe(true);
    expect(basic.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const chunked = await stream('tck-stream-chunked multi-part');
    expect(chunked.filter((r) => r.artifactUpdate).length).toBeGreaterThanOrEqual(2);
    expect(chunked.length).toBeGreaterThanOrEqual(3);
  });

  it('CORE-EXEC-001/002: tck-long-running is WORKING while polled, then COMPLETED with an artifact', { timeout: 20_000 }, async () => {
    const started = (await rpc(agent, 'SendMessage', { message: message('tck-long-running start process'), configuration: { returnImmediately: true } }, auth())).body.result.task;
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(started.status.state);
    const seen = new Set<string>();
    let task: any;
    for (let i = 0; i < 150; i++) {
      task = (await rpc(agent, 'GetTask', { id: started.id }, auth())).body.result;
      seen.add(task.status.state);
      if (task.status.state === 'TASK_STATE_COMPLETED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.has('TASK_STATE_WORKING')).toBe(true);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts.length).toBeGreaterThanOrEqual(1);
  });

  it('a TCK message (routed by its messageId prefix) still wins over the text', async () => {
    const r = await rpc(agent, 'SendMessage', { message: { ...message('tck-task-failure'), messageId: `tck-complete-task-${crypto.randomUUID()}` } }, auth());
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

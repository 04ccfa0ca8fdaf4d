/**
 * A server that dies mid-run (its model stream stalls and the process is gone, as after kill -9)
 * and starts again on the same SQLite store: the LLM agent's task is resumed from its log, not
 * failed. The tool call already answered is not repeated, the interrupted model call is made again,
 * and the resumed run calls tools as the original caller (a scoped skill still answers).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';
import { ScriptedModel } from './scripted-models.js';

const KEY = 'alice-key-0123456789abcdef';
const servers: TestServer[] = [];
let model: ScriptedModel | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await model?.close();
  for (const s of servers) await s.close().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('a restart resumes the run from the task log', async () => {
  model = new ScriptedModel('openai', (r) => {
    if (r.toolResults.length < 2) return { toolCalls: [{ name: 'echo__echo', arguments: { request: r.toolResults.length === 0 ? 'one' : 'two' } }] };
    return { text: 'resumed answer' };
  });
  const baseUrl = await model.listen();
  dataDir = await mkdtemp(path.join(tmpdir(), 'llm-restart-'));
  const config = {
    auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'echo:use'] }] },
    agents: [
      { id: 'analyst', llm: { provider: 'openai', baseUrl, model: 'gpt-scripted', instructions: 'Echo twice.', tools: ['echo'] } },
      { id: 'echo', builtin: 'echo', skills: { echo: { scopes: ['echo:use'] } } },
    ],
  };
  // The second model call (after the first echo) is where the first server dies.
  model.stallOnce = (r) => r.toolResults.length === 1;
  const stalled = new Promise<void>((resolve) => (model!.stalled = resolve));
  const first = await startTestServer(config, { dataDir, keepData: true });
  servers.push(first);
  const sent = await rpc(`${first.http}/a2a/analyst`, 'SendMessage', { message: userMessage('go'), configuration: { returnImmediately: true } }, { 'x-api-key': KEY });
  const taskId = sent.body.result.task.id;
  await stalled;

  // A second process on the same store, the first one never closing (its stream hangs forever).
  // A dead process's data-directory lock is gone with it (issue 25 L1), but the first server here
  // lives on in this process and keeps its lock: the second opens the same database file from a
  // data directory of its own, as a restarted process would find the lock free.
  const secondDir = await mkdtemp(path.join(tmpdir(), 'llm-restart-2-'));
  const second = await startTestServer({ ...config, storage: { driver: 'sqlite', file: path.join(dataDir, 'agentport.db') } }, { dataDir: secondDir });
  servers.push(second);
  let task: any;
  for (let i = 0; ; i++) {
    task = (await rpc(`${second.http}/a2a/analyst`, 'GetTask', { id: taskId }, { 'x-api-key': KEY })).body.result;
    if (task.status.state === 'TASK_STATE_COMPLETED' || task.status.state === 'TASK_STATE_FAILED') break;
    if (i > 200) throw new Error(`task still ${task.status.state}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  const steps = task.history.flatMap((m: any) => m.parts.filter((p: any) => p.mediaType === 'application/vnd.agentport.llm-step+json').map((p: any) => p.data));
  // One echo before the crash, one after: both answered, as alice (echo needs her echo:use scope).
  expect(steps.filter((r: any) => r.kind === 'tool_result').map((r: any) => [r.status, JSON.parse(r.content).data])).toEqual([
    ['completed', 'one'],
    ['completed', 'two'],
  ]);
  // The model was asked: step 1, step 2 (stalled), step 2 again, step 3.
  expect(model.requests.map((r) => r.toolResults.length)).toEqual([0, 1, 1, 2]);
  // The interrupted step's artifact was replaced, not appended to.
  const text = task.artifacts.map((a: any) => a.parts.map((p: any) => p.text).join('')).join('|');
  expect(text).toBe('resumed answer');
}, 60_000);

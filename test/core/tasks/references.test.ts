/** A2A v1.0 §7 referenceTaskIds: the executor sees the referenced tasks; an unknown reference is TaskNotFound. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage, type TestServer } from '../../support/server.js';
import { codeOf, startProbeServer } from './helpers.js';

describe('referenceTaskIds', () => {
  let s: TestServer;
  let probe: string;
  beforeAll(async () => {
    s = await startProbeServer();
    probe = `${s.http}/a2a/probe`;
  });
  afterAll(async () => s?.stop());

  const refsArtifact = (task: any): string[] => task.artifacts[0].parts[0].text.split('\n');

  it('hands the referenced tasks to the executor as ctx.referenceTasks, in the order given', async () => {
    const a = (await rpc(probe, 'SendMessage', { message: userMessage('first') })).body.result.task;
    const b = (await rpc(probe, 'SendMessage', { message: userMessage('input') })).body.result.task;
    const r = await rpc(probe, 'SendMessage', { message: userMessage('refs', { contextId: a.contextId, referenceTaskIds: [b.id, a.id] }) });
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(refsArtifact(r.body.result.task)).toEqual([b.id, a.id]);
    // the message keeps its references in history
    expect(r.body.result.task.history[0].referenceTaskIds).toEqual([b.id, a.id]);
  });

  it('gives an empty list when nothing is referenced', async () => {
    const r = await rpc(probe, 'SendMessage', { message: userMessage('refs') });
    expect(refsArtifact(r.body.result.task)).toEqual(['(none)']);
  });

  it('rejects an unknown referenced task with TaskNotFound (-32001) and starts no task', async () => {
    const a = (await rpc(probe, 'SendMessage', { message: userMessage('first') })).body.result.task;
    const r = await rpc(probe, 'SendMessage', {
      message: userMessage('refs', { contextId: 'ctx-bad-reference', referenceTaskIds: [a.id, 'no-such-task'] }),
    });
    expect(codeOf(r.body)).toBe(-32001);
    const l = await rpc(probe, 'ListTasks', { contextId: 'ctx-bad-reference' });
    expect(l.body.result.tasks).toEqual([]);
  });

  it('rejects a reference to a task of another agent with TaskNotFound', async () => {
    const other = await rpc(`${s.http}/a2a/conformance`, 'SendMessage', { message: { ...userMessage('x'), messageId: 'tck-complete-task-ref' } });
    const r = await rpc(probe, 'SendMessage', { message: userMessage('refs', { referenceTaskIds: [other.body.result.task.id] }) });
    expect(codeOf(r.body)).toBe(-32001);
  });
});

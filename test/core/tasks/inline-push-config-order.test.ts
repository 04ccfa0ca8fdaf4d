/**
 * An inline push config (SendMessage configuration.taskPushNotificationConfig) is in the store
 * before the commit whose outbox rows name it. A delivery worker, on any replica, may claim a row
 * the moment it is committed, and it drops a row whose config it cannot find (a deleted config,
 * A2A §9): a config stored after the rows lost the task's first deliveries (the interop-cluster
 * suite, under load: no `task:TASK_STATE_SUBMITTED` push). Deterministic: the config's write is held
 * until the first commit is handed to the committer, or 300 ms at most when no commit comes first.
 */
import { afterEach, describe as suite, expect, it } from 'vitest';
import type { StoredPushConfig, TaskCommit } from '../../../src/store/store.js';
import { GroupCommitter } from '../../../src/store/index.js';
import { agent, startEngine, until, userMessage, type Engine } from './engine-harness.js';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

/** A committer that, as each commit is handed to it, notes which configs named by its outbox rows the store lacks. */
class OutboxCheckingCommitter extends GroupCommitter {
  readonly missing: string[] = [];
  readonly outboxCommits: number[] = [];
  onCommit: () => void = () => {};

  override commit(c: TaskCommit): Promise<void> {
    this.onCommit();
    if (c.outbox.length === 0) return super.commit(c);
    this.outboxCommits.push(c.outbox.length);
    const store = engine!.store;
    return (async () => {
      for (const o of c.outbox) if (!(await store.getPushConfig(o.taskId, o.configId))) this.missing.push(`${o.configId}@${o.seq}`);
      await super.commit(c);
    })();
  }
}

suite('inline push config and the outbox rows that name it (in process)', () => {
  it("a new task's first commit reaches the committer only once its inline push config is stored", async () => {
    let committer: OutboxCheckingCommitter | undefined;
    engine = await startEngine({ echo: agent((ctx) => ctx.complete('done')) }, {}, { committer: (store) => (committer = new OutboxCheckingCommitter(store)) });
    const store = engine.store;
    const put = store.putPushConfig.bind(store);
    let firstCommit = () => {};
    const committed = new Promise<void>((resolve) => (firstCommit = resolve));
    committer!.onCommit = () => firstCommit();
    store.putPushConfig = async (c: StoredPushConfig) => {
      await Promise.race([committed, new Promise((r) => setTimeout(r, 300))]);
      return put(c);
    };

    const r = await engine.service.sendMessage(engine.ctx('echo'), {
      message: userMessage('pushed'),
      configuration: { taskPushNotificationConfig: { id: 'inline-1', url: 'http://127.0.0.1:9/hook', token: 't' } },
    });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_COMPLETED');
    await until(async () => (await store.getPushConfig(r.task.id, 'inline-1')) !== undefined, 'the inline config to be stored');
    // a row for each event of the task's log, from its first (the Task, SUBMITTED) on
    const events = await store.readEvents(r.task.id, 0, 100);
    const rows = await store.listPendingDeliveries(r.task.id);
    expect(rows.map((o) => o.seq)).toEqual(events.map((e) => e.seq));
    expect(rows[0]?.seq).toBe(1);
    expect(committer!.outboxCommits.reduce((n, k) => n + k, 0)).toBe(rows.length);
    // and no commit carried a row whose config the store did not have yet
    expect(committer!.missing).toEqual([]);
  });

  it('when the inline push config cannot be stored, neither is the task: the caller is told, nothing half-made is left', async () => {
    engine = await startEngine({ echo: agent((ctx) => ctx.complete('done')) });
    const store = engine.store;
    store.putPushConfig = async () => {
      throw new Error('disk full');
    };
    const message = userMessage('pushed');
    await expect(engine.service.sendMessage(engine.ctx('echo'), { message, configuration: { taskPushNotificationConfig: { id: 'inline-1', url: 'http://127.0.0.1:9/hook' } } })).rejects.toMatchObject({
      kind: 'Internal',
      message: 'The task could not be stored',
    });
    expect(await store.findTaskByMessageId('echo', 'alice', message.messageId)).toBeUndefined();
    expect((await store.listTasks({ agentId: 'echo', owner: 'alice', pageSize: 10 })).tasks).toEqual([]);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import type { Task } from '../../src/protocol/a2a/types.js';
import { rpc, startTestServer, type TestServer } from '../support/server.js';

describe('start-up recovery of tasks a crash cut off', () => {
  let server: TestServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ends a task left WORKING in the store FAILED with a reason, appended to its event log', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-recovery-'));
    // What a killed server leaves behind: a task committed as WORKING whose executor is gone.
    const store = await openSqliteStore({ file: path.join(dir, 'agentport.db') });
    await store.migrate();
    const task: Task = { id: 'orphan-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() } };
    const now = Date.now();
    await store.commit([{ agentId: 'echo', owner: 'anonymous', task, expectedVersion: 0, seq: 1, events: [{ taskId: task.id, seq: 1, event: { task }, createdAt: now }], outbox: [], createdAt: now }]);
    await store.close();

    server = await startTestServer({}, { dataDir: dir, keepData: true });
    const got = await rpc(`${server.http}/a2a/echo`, 'GetTask', { id: 'orphan-1' });
    expect(got.body.result.status.state).toBe('TASK_STATE_FAILED');
    expect(got.body.result.status.message.parts[0].text).toMatch(/restarted/);

    const res = await fetch(`${server.http}/a2a/echo/tasks/orphan-1:subscribe`, { method: 'POST', headers: { 'a2a-version': '1.0', 'last-event-id': '1' } });
    const text = await res.text();
    expect(text).toContain('id: 2');
    expect(text).toContain('TASK_STATE_FAILED');
  });
});

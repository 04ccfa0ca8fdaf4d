/**
 * The PostgreSQL commit sends a task, its events and its push payloads as the UTF-8 bytes of one
 * bytea parameter that its JSON rows point into by byte offset and length
 * (src/store/postgres/json-rows.ts). Whatever the texts hold (escapes, multi-byte characters, rows
 * of different lengths side by side), the store must keep them exactly: the task row holds
 * JSON.stringify's text of the task, and the task, its events and the push payloads read back equal
 * to what was committed.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TaskCommit } from '../../../src/store/store.js';
import { postgresStoreWithPool } from '../../support/postgres-store-with-pool.js';
import { newTask, pushConfig, update } from '../fixtures.js';

const db = postgresStoreWithPool('t_jsontexts');

/** Texts a message may carry, each a different case for the JSON row writer. */
const TEXTS: Record<string, string> = {
  plain: 'hello',
  quotes: 'say "hi" \\ back\\slash and a trailing \\',
  nul: 'before\u0000after',
  'lone surrogate': 'x\ud800y',
  'control character': 'bell\u0007',
  'backslash u in the text': 'C:\\users\\u0000',
  'pair and accents': 'é ü 😀 \u2028',
};

/** The commit of a new task whose message carries `text`. */
function taskWith(text: string): TaskCommit {
  const c = newTask();
  c.task.history = [{ messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] }];
  return c;
}

describe('PostgreSQL commit: JSON texts kept exactly', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    it(`keeps a task, its events and push payloads holding ${name}`, async () => {
      const created = taskWith(text);
      // One batch with another task of plain text, so rows of both kinds share the statement.
      const other = taskWith('plain neighbour');
      await db.store.commit([created, other]);
      await db.store.putPushConfig(pushConfig(created.task.id, 'cfg-1'));
      const next = update(created, { state: 'TASK_STATE_WORKING', outboxConfigIds: ['cfg-1'] });
      next.task.artifacts = [{ artifactId: 'a-1', parts: [{ text }] }];
      next.events[0]!.event = { artifactUpdate: { taskId: next.task.id, contextId: next.task.contextId, artifact: next.task.artifacts[0]! } };
      next.outbox[0]!.payload = next.events[0]!.event;
      await db.store.commit([next]);

      const stored = await db.store.getTask(next.agentId, next.task.id);
      expect(stored?.task).toEqual(next.task);
      expect(stored?.version).toBe(2);
      const { rows } = await db.pool.query<{ task: string }>('select task from tasks where id = $1', [next.task.id]);
      expect(rows[0]?.task).toBe(JSON.stringify(next.task));

      const events = await db.store.readEvents(next.task.id, 0);
      expect(events.map((e) => e.event)).toEqual([created.events[0]!.event, next.events[0]!.event]);

      const pending = await db.store.listPendingDeliveries(next.task.id);
      expect(pending).toHaveLength(1);
      const claimed = (await db.store.claimOutbox(next.createdAt + 1, 100, 60_000)).filter((e) => e.taskId === next.task.id);
      expect(claimed.map((e) => e.payload)).toEqual([next.events[0]!.event]);

      expect((await db.store.getTask(other.agentId, other.task.id))?.task).toEqual(other.task);
    });
  }
});

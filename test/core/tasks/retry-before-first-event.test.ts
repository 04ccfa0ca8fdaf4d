/**
 * SendMessage idempotency in the window before the first run's first event (issue 25 C1a). Before,
 * a retry with the same messageId found no stored task, started a run of its own, and waited its
 * own full timeout (TIMEOUT) although the first run's task had completed meanwhile. Now it waits
 * on the first run's task and answers with it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../../support/server.js';

const GATED = path.resolve(fileURLToPath(new URL('../../fixtures/agents/gated-first-event-agent.mjs', import.meta.url)));
const TIMEOUT_MS = 3_000;

let s: TestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentport-gate-'));
  s = await startTestServer({ agents: [{ id: 'gated', module: GATED }], limits: { blockingSendTimeoutMs: TIMEOUT_MS } });
});
afterAll(async () => {
  await s?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a retry of a task-creating SendMessage before the first run produced anything', () => {
  it('answers with the first run task once it completes, not TIMEOUT', async () => {
    const gate = path.join(dir, 'go');
    const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `gate ${gate}` }] };
    const url = `${s.http}/a2a/gated`;
    const first = rpc(url, 'SendMessage', { message });
    for (let i = 0; i < 500 && !existsSync(`${gate}.started`); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(`${gate}.started`), 'the first run started').toBe(true);
    const retry = rpc(url, 'SendMessage', { message });
    // Released only once the retry is in: nothing of the first run was stored when it arrived.
    await new Promise((r) => setTimeout(r, 200));
    await writeFile(gate, '');
    const [a, b] = await Promise.all([first, retry]);
    expect(a.body.result?.task?.status?.state, JSON.stringify(a.body)).toBe('TASK_STATE_COMPLETED');
    expect(b.body.error, JSON.stringify(b.body)).toBeUndefined();
    expect(b.body.result.task.id).toBe(a.body.result.task.id);
    expect(b.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

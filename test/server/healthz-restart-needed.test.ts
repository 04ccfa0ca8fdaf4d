/**
 * /healthz of a whole running server once its SQLite commit thread has stopped (ADR 0062's
 * amendment): the liveness answer turns 503 "restart needed" — the wiring in start-listeners.ts,
 * not only the route and the store side by side (test/store/sqlite-thread-death.test.ts) — and
 * /readyz says not ready; an agent call that needs a commit is refused, not hung.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { rpc, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function get(url: string): Promise<{ status: number; body: unknown; cache: string | null }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json(), cache: res.headers.get('cache-control') };
}

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect.fail(`${what}: not within 5 s`);
}

describe('/healthz of a running server whose SQLite commit thread stopped', () => {
  it('answers 503 "restart needed" naming the cause, with no-store, and /readyz is not ready', async () => {
    let store: Store | undefined;
    const logged: string[] = [];
    server = await startTestServer({ storage: { driver: 'sqlite', commitThread: true } }, { services: { storeOpened: (s) => (store = s), logDestination: { write: (line) => logged.push(line) } } });
    expect(store).toBeInstanceOf(SqliteStore);
    const sqlite = store as SqliteStore;
    expect(sqlite.commitsOnThread, 'the commit thread started (dist/ built)').toBe(true);
    expect(await get(`${server.http}/healthz`)).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });

    sqlite.killThreadForTests('commit', 'uncaught');
    await until('/healthz turned 503', async () => (await fetch(`${server!.http}/healthz`)).status === 503);
    expect(await get(`${server.http}/healthz`)).toEqual({ status: 503, body: { status: 'restart needed', reason: 'commit thread stopped' }, cache: 'no-store' });
    const ready = await get(`${server.http}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(ready.body)).toContain('commit thread stopped');
    // The cause is told to the operator once, by the store's module.
    const stops = logged.map((l) => JSON.parse(l) as { module?: string; msg?: string }).filter((l) => l.module === 'store' && /commit thread stopped/.test(l.msg ?? ''));
    expect(stops).toHaveLength(1);

    // A call that must store its task is answered with an error, not left hanging.
    const agent = server.agents[0]!;
    const answer = await rpc(agent.url, 'SendMessage', { message: { messageId: 'm-after-stop', role: 'ROLE_USER', parts: [{ text: 'hello' }] }, configuration: { returnImmediately: false } });
    expect(answer.body.error, JSON.stringify(answer.body)).toBeDefined();
    expect(JSON.stringify(answer.body)).not.toMatch(/at .+\.(js|ts):\d+/);
  });

  it('stays 200 while the thread runs, also after the agent has answered calls', async () => {
    server = await startTestServer({ storage: { driver: 'sqlite', commitThread: true } }, { services: { logDestination: { write() {} } } });
    const agent = server.agents[0]!;
    const answer = await rpc(agent.url, 'SendMessage', { message: { messageId: 'm-live', role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
    expect(answer.body.result, JSON.stringify(answer.body)).toBeDefined();
    expect(await get(`${server.http}/healthz`)).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });
  });
});

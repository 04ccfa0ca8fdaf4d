/**
 * `GET /api/v1/tasks` on a real server (SQLite, auth.mode required): an administrator lists every
 * owner's tasks across agents and filters them by agent, state, owner and time, paging with the
 * token; any other caller sees only its own, and naming another owner is refused.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';

const SCRIPTED = path.resolve(fileURLToPath(new URL('../../fixtures/agents/scripted-text-agent.mjs', import.meta.url)));

interface Summary {
  agentId: string;
  owner: string;
  id: string;
  preview?: string;
  status: { state: string; timestamp?: string };
}
interface Page {
  tasks: Summary[];
  totalSize: number;
  nextPageToken?: string;
}

let s: AuthzServer;
let alice: string;
let bob: string;
let discoverOnly: string;
const created: Record<string, string> = {};

async function createTask(agent: string, key: string, text: string): Promise<string> {
  const res = await fetch(`${s.http}/api/v1/agents/${agent}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

const list = async (query: string, key = s.adminKey): Promise<Page> => {
  const res = await fetch(`${s.http}/api/v1/tasks${query}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as Page;
};
const ids = (p: Page) => p.tasks.map((t) => t.id).sort();

beforeAll(async () => {
  s = await startAuthzServer({
    agents: [
      { id: 'scripted', module: SCRIPTED },
      { id: 'other', module: SCRIPTED },
    ],
  });
  alice = await s.key('alice', ['a2a:discover', 'a2a:publish']);
  bob = await s.key('bob', ['a2a:discover', 'a2a:publish']);
  discoverOnly = await s.key('carol', ['a2a:publish']);
  created.aliceAsk = await createTask('scripted', alice, 'ask');
  created.aliceDone = await createTask('other', alice, 'data one');
  created.bobAsk = await createTask('scripted', bob, 'ask');
  created.bobDone = await createTask('other', bob, 'data two');
}, 60_000);
afterAll(() => s?.stop());

describe('GET /api/v1/tasks', () => {
  it('answers 401 without a credential and 403 without a2a:discover', async () => {
    const none = await fetch(`${s.http}/api/v1/tasks`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('a2a:discover');
    expect((await fetch(`${s.http}/api/v1/tasks`, { headers: { 'x-api-key': discoverOnly } })).status).toBe(403);
  });

  it('lists every owner\u2019s tasks across agents for an administrator, newest status first', async () => {
    const all = await list('');
    expect(all.totalSize).toBe(4);
    expect(ids(all)).toEqual(Object.values(created).sort());
    const times = all.tasks.map((t) => Date.parse(t.status.timestamp!));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.tasks.find((t) => t.id === created.bobAsk)).toMatchObject({ agentId: 'scripted', owner: 'bob', status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    // Each task says what it was about: its first user message.
    expect(Object.fromEntries(all.tasks.map((t) => [t.id, t.preview]))).toEqual({ [created.aliceAsk!]: 'ask', [created.aliceDone!]: 'data one', [created.bobAsk!]: 'ask', [created.bobDone!]: 'data two' });
  });

  it('filters by agent, state, owner and time', async () => {
    expect(ids(await list('?agent=scripted'))).toEqual([created.aliceAsk, created.bobAsk].sort());
    expect(ids(await list('?state=TASK_STATE_COMPLETED'))).toEqual([created.aliceDone, created.bobDone].sort());
    expect(ids(await list('?owner=bob&agent=other'))).toEqual([created.bobDone]);
    expect((await list(`?since=${Date.now() + 60_000}`)).tasks).toEqual([]);
    expect(ids(await list(`?until=${new Date(Date.now() + 60_000).toISOString()}`))).toHaveLength(4);
    expect((await list('?until=1')).totalSize).toBe(0);
  });

  it('pages with nextPageToken until every task was seen once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await list(`?pageSize=3${token ? `&pageToken=${token}` : ''}`);
      expect(page.totalSize).toBe(4);
      seen.push(...page.tasks.map((t) => t.id));
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen.sort()).toEqual(Object.values(created).sort());
  });

  it('shows a non-administrator only its own tasks, and refuses another owner by name', async () => {
    const own = await list('', alice);
    expect(ids(own)).toEqual([created.aliceAsk, created.aliceDone].sort());
    expect(own.tasks.every((t) => t.owner === 'alice')).toBe(true);
    expect(ids(await list('?agent=scripted', bob))).toEqual([created.bobAsk]);
    expect(ids(await list('?owner=alice', alice))).toHaveLength(2);
    const other = await fetch(`${s.http}/api/v1/tasks?owner=bob`, { headers: { 'x-api-key': alice } });
    expect(other.status).toBe(403);
  });

  it('answers 400 to an unknown filter, a malformed state or a foreign page token', async () => {
    for (const q of ['?colour=red', '?state=working', '?pageToken=bm9wZQ', '?since=yesterday']) {
      const res = await fetch(`${s.http}/api/v1/tasks${q}`, { headers: { 'x-api-key': s.adminKey } });
      expect(res.status, q).toBe(400);
    }
  });
});

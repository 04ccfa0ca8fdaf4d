/**
 * `GET /api/v1/agents/{agentId}/tasks/{taskId}/events` on a real server (SQLite, auth required,
 * a real receiver on loopback that answers 500): the task's event log in seq order with kinds and
 * times, its push configs without their token, credentials or URL query, and the delivery still
 * owed with its attempts and last error. The owner and an administrator read it; another owner
 * meets TaskNotFound, as over A2A.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';
import { rpc, userMessage } from '../../support/server.js';
import { WEBHOOK_REFUSED } from '../../../src/core/push/webhook-check.js';

const PUSH_TOKEN = 'Push-Token-Never-Shown-7f3a';
const PUSH_CREDENTIALS = 'Push-Credentials-Never-Shown-91bc';
const QUERY_SECRET = 'query-secret-e55d';

let s: AuthzServer;
let receiver: http.Server;
let receiverUrl: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500).end('no'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  s = await startAuthzServer({ push: { allowHttp: true, allowlist: ['127.0.0.1'] }, agents: [{ id: 'echo', builtin: 'echo' }] });
  alice = await s.key('alice', ['a2a:discover', 'a2a:publish']);
  bob = await s.key('bob', ['a2a:discover', 'a2a:publish']);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  receiver?.closeAllConnections();
  await new Promise<void>((r) => receiver?.close(() => r()));
});

const events = (agent: string, taskId: string, key?: string) => fetch(`${s.http}/api/v1/agents/${agent}/tasks/${taskId}/events`, { headers: key ? { 'x-api-key': key } : {} });

describe('a task’s event log and push deliveries', () => {
  it('lists the events in order with kinds, and the push config and owed delivery without secrets', async () => {
    const sent = await rpc(
      `${s.http}/a2a/echo`,
      'SendMessage',
      {
        message: userMessage('log me'),
        configuration: { taskPushNotificationConfig: { url: `${receiverUrl}/hook?key=${QUERY_SECRET}`, token: PUSH_TOKEN, authentication: { scheme: 'Bearer', credentials: PUSH_CREDENTIALS } } },
      },
      { 'x-api-key': alice },
    );
    expect(sent.status).toBe(200);
    const taskId = sent.body.result.task.id as string;

    // The receiver fails: the delivery stays owed, with its attempt counted and the error kept.
    const read = async () => {
      const res = await events('echo', taskId, alice);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      return { text: await res.clone().text(), body: (await res.json()) as any };
    };
    await expect.poll(async () => (await read()).body.push.pending[0]?.attempts ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    const { text, body } = await read();

    expect(body.truncated).toBe(false);
    const seqs = body.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    const kinds = body.events.map((e: { kind: string }) => e.kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    expect(kinds.at(-1)).toBe('statusUpdate');
    expect(body.events.at(-1).event.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    for (const e of body.events) expect(Number.isNaN(Date.parse(e.at))).toBe(false);

    expect(body.push.configs).toEqual([{ id: expect.any(String), url: `${receiverUrl}/hook`, createdAt: expect.any(String) }]);
    const owed = body.push.pending[0];
    expect(owed).toMatchObject({ configId: body.push.configs[0].id, seq: 1 });
    expect(owed.lastError).toMatch(/500/);
    for (const secret of [PUSH_TOKEN, PUSH_CREDENTIALS, QUERY_SECRET]) expect(text).not.toContain(secret);

    // An administrator reads it too; another owner does not learn the task exists.
    expect((await events('echo', taskId, s.adminKey)).status).toBe(200);
    const refused = await events('echo', taskId, bob);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain('log me');
    expect((await events('other-agent', taskId, alice)).status).toBe(404);
    expect((await events('echo', taskId)).status).toBe(401);
  });

  it('shows the owner the one outbound-policy sentence as the last error of a webhook whose host does not resolve, never the reason (issue 25)', async () => {
    // .invalid never resolves (RFC 6761 §6.4): accepted like any name, refused at every delivery.
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('unresolvable'), configuration: { taskPushNotificationConfig: { url: 'https://hooks.invalid/hook' } } }, { 'x-api-key': alice });
    expect(sent.status).toBe(200);
    const taskId = sent.body.result.task.id as string;
    const owed = async () => ((await (await events('echo', taskId, alice)).json()) as any).push.pending[0];
    await expect.poll(async () => (await owed())?.attempts ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await owed()).lastError).toBe(WEBHOOK_REFUSED);
  });
});

/**
 * The audit log over a real SQLite store: record() queues without throwing, batches reach the
 * chain in call order, a failed write is retried, and stored records are forwarded to a webhook
 * receiver on loopback through the SSRF guard.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, AuditWebhookForwarder } from '../../../src/core/audit/index.js';
import { SsrfGuard } from '../../../src/net/index.js';
import type { AuditAppend, AuditRecord, AuditStore } from '../../../src/store/audit-store.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';

const stores: Store[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const s of servers.splice(0)) s.close();
});

async function store(): Promise<Store> {
  const s = await openSqliteStore({ file: ':memory:' });
  await s.migrate();
  stores.push(s);
  return s;
}

/** A loopback collector: every POST body, and the status it answers with (a queue, then 200). */
async function receiver(statuses: number[] = []) {
  const bodies: Array<{ body: unknown; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      if (status === 200) bodies.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')), headers: req.headers });
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/audit`, bodies };
}

describe('AuditLog', () => {
  it('writes recorded events in call order, several per append', async () => {
    const s = await store();
    const appends: number[] = [];
    const counting: AuditStore = { append: (r: readonly AuditAppend[]) => (appends.push(r.length), s.audit.append(r)), list: (q) => s.audit.list(q), verify: (p) => s.audit.verify(p) };
    const log = new AuditLog({ store: counting, replica: 'r1', now: () => 42 });
    for (let i = 0; i < 5; i++) log.record({ action: 'apikey.created', outcome: 'success', actor: 'alice', target: `apikey:k${i}`, requestId: `q${i}` });
    await log.flush();
    const rows = await s.audit.list({ limit: 10 });
    expect(rows.map((r) => r.target)).toEqual(['apikey:k0', 'apikey:k1', 'apikey:k2', 'apikey:k3', 'apikey:k4']);
    expect(rows[0]).toMatchObject({ time: 42, replica: 'r1', requestId: 'q0' });
    expect(appends).toEqual([5]);
    expect(await s.audit.verify()).toMatchObject({ ok: true, count: 5 });
  });

  it('keeps a batch whose write failed and writes it on the retry', async () => {
    const s = await store();
    let failNext = true;
    const flaky: AuditStore = {
      append: async (r) => {
        if (failNext) {
          failNext = false;
          throw new Error('database unavailable');
        }
        return s.audit.append(r);
      },
      list: (q) => s.audit.list(q),
      verify: (p) => s.audit.verify(p),
    };
    const warnings: string[] = [];
    const log = new AuditLog({ store: flaky, replica: 'r1', retryBaseMs: 1, log: { warn: (_o, m) => warnings.push(m ?? ''), error() {} } });
    log.record({ action: 'user.created', outcome: 'success', actor: 'admin', target: 'user:bob' });
    await log.flush();
    expect(warnings).toEqual(['audit log write failed; retrying']);
    log.record({ action: 'user.deleted', outcome: 'success', actor: 'admin', target: 'user:bob' });
    await log.flush();
    expect((await s.audit.list({ limit: 10 })).map((r) => r.action)).toEqual(['user.created', 'user.deleted']);
  });

  it('drops records beyond the queue limit and counts them, never throwing', async () => {
    const s = await store();
    const log = new AuditLog({ store: s.audit, replica: 'r1', queueLimit: 2 });
    for (let i = 0; i < 4; i++) log.record({ action: 'signin.failed', outcome: 'failure', actor: 'anonymous', details: { i } });
    expect(log.dropped).toBe(2);
    await log.flush();
    expect((await s.audit.list({ limit: 10 })).map((r) => r.details)).toEqual([{ i: 0 }, { i: 1 }]);
  });

  it('forwards every stored record, with its seq and hash, to a loopback webhook in order', async () => {
    const s = await store();
    const rx = await receiver([503]);
    const webhook = new AuditWebhookForwarder({ url: rx.url, headers: { authorization: 'Bearer siem' }, guard: new SsrfGuard({ allowHttp: true, allow: ['127.0.0.1'] }), retryBaseMs: 1 });
    const log = new AuditLog({ store: s.audit, replica: 'r1', webhook });
    log.record({ action: 'client.created', outcome: 'success', actor: 'admin', target: 'client:c1' });
    log.record({ action: 'client.deleted', outcome: 'success', actor: 'admin', target: 'client:c1' });
    await log.flush();
    await webhook.drain();
    const stored = await s.audit.list({ limit: 10 });
    expect(rx.bodies.map((b) => b.body)).toEqual(JSON.parse(JSON.stringify(stored)) as AuditRecord[]);
    expect(rx.bodies[0]!.headers.authorization).toBe('Bearer siem');
    expect(rx.bodies[0]!.headers['content-type']).toBe('application/json');
    expect(webhook.delivered).toBe(2);
  });

  it('does not send to an address the SSRF guard refuses, and still stores the record', async () => {
    const s = await store();
    const rx = await receiver();
    const webhook = new AuditWebhookForwarder({ url: rx.url, guard: new SsrfGuard({ allowHttp: true }), retryBaseMs: 1 });
    const log = new AuditLog({ store: s.audit, replica: 'r1', webhook });
    log.record({ action: 'config.reloaded', outcome: 'success', actor: 'system' });
    await log.flush();
    await webhook.drain();
    expect(rx.bodies).toEqual([]);
    expect(webhook.dropped).toBe(1);
    expect(await s.audit.verify()).toMatchObject({ ok: true, count: 1 });
  });
});

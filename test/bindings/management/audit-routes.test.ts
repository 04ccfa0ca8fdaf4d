/**
 * `GET /api/v1/audit` on a real server (SQLite, auth.mode required): admins only; the records that
 * key creation and revocation over HTTP and a refused non-admin leave behind, with the request's
 * id, address and user agent; the filters; the NDJSON export, whose records chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/store/audit-store.js';
import { startAuthzServer, type AuthzServer } from '../../core/authz/support.js';

let s: AuthzServer;
let nonAdmin: string;
let nonAdminId: string;

beforeAll(async () => {
  s = await startAuthzServer();
  nonAdmin = await s.key('reader', ['a2a:discover']);
  nonAdminId = nonAdmin.split('_')[1]!;
});
afterAll(() => s?.stop());

const get = (query: string, key = s.adminKey) => fetch(`${s.http}/api/v1/audit${query}`, { headers: { 'x-api-key': key } });
const records = async (query: string) => {
  const res = await get(query);
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: AuditRecord[]; nextAfter?: number }).records;
};
/** The admin key's subject, as the revocation (made with that key) recorded it. */
const adminSubjectOf = async () => (await records('?action=apikey.revoked&limit=1'))[0]!.actor;

describe('GET /api/v1/audit', () => {
  it('answers 401 without a credential and 403 to a non-admin', async () => {
    expect((await fetch(`${s.http}/api/v1/audit`)).status).toBe(401);
    expect((await get('', nonAdmin)).status).toBe(403);
  });

  it('records an API key created and revoked over HTTP, with who, from where and the request id', async () => {
    const created = await fetch(`${s.http}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.adminKey, 'user-agent': 'audit-test/1', 'x-request-id': 'req-create-1' },
      body: JSON.stringify({ subject: 'ci-bot', scopes: ['a2a:publish'] }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const revoked = await fetch(`${s.http}/api/v1/keys/${id}`, { method: 'DELETE', headers: { 'x-api-key': s.adminKey } });
    expect(revoked.status).toBe(204);

    const onKey = await records(`?target=apikey:${id}`);
    expect(onKey.map((r) => r.action)).toEqual(['apikey.created', 'apikey.revoked']);
    const adminKeyId = s.adminKey.split('_')[1]!;
    expect(onKey[0]).toMatchObject({
      outcome: 'success',
      actorClient: `apikey:${adminKeyId}`,
      clientAddress: '127.0.0.1',
      userAgent: 'audit-test/1',
      requestId: 'req-create-1',
      details: { subject: 'ci-bot', scopes: ['a2a:publish'] },
    });
    expect(onKey[1]!.requestId).toBe(revoked.headers.get('x-request-id'));
    expect(onKey[1]!.actor).toBe(onKey[0]!.actor);
  });

  it('records the admin key created by the first start, by system', async () => {
    const adminKeyId = s.adminKey.split('_')[1]!;
    expect(await records(`?target=apikey:${adminKeyId}`)).toMatchObject([{ action: 'apikey.created', outcome: 'success', actor: 'system', details: { scopes: ['admin'], firstStart: true } }]);
  });

  it('records a non-admin refused by the management API as authz.denied', async () => {
    const refused = await fetch(`${s.http}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': nonAdmin },
      body: JSON.stringify({ subject: 'x', scopes: [] }),
    });
    expect(refused.status).toBe(403);
    const denied = await records(`?action=authz.denied&actor=reader`);
    expect(denied.at(-1)).toMatchObject({ outcome: 'denied', actorClient: `apikey:${nonAdminId}`, details: { operation: 'administer', requiredScopes: ['admin'] } });
  });

  it('filters by outcome, actor and seq, and pages with nextAfter', async () => {
    const admin = await adminSubjectOf();
    const byAdmin = await records(`?actor=${encodeURIComponent(admin)}`);
    expect(byAdmin.length).toBeGreaterThanOrEqual(3);
    expect(byAdmin.every((r) => r.actor === admin)).toBe(true);
    expect((await records('?outcome=denied')).every((r) => r.outcome === 'denied')).toBe(true);
    const page = (await (await get('?limit=1')).json()) as { records: AuditRecord[]; nextAfter: number };
    expect(page.records).toHaveLength(1);
    expect(page.nextAfter).toBe(page.records[0]!.seq);
    const next = await records(`?limit=1&after=${page.nextAfter}`);
    expect(next[0]!.seq).toBe(page.nextAfter + 1);
    expect(await records(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
  });

  it('refuses an unknown filter or a malformed value', async () => {
    expect((await get('?who=me')).status).toBe(400);
    expect((await get('?outcome=maybe')).status).toBe(400);
    expect((await get('?since=yesterday')).status).toBe(400);
  });

  it('exports NDJSON: every record, one a line, chained', async () => {
    const res = await get('?format=ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trimEnd().split('\n');
    const all = lines.map((l) => JSON.parse(l) as AuditRecord);
    expect(all.map((r) => r.seq)).toEqual(all.map((_r, i) => i + 1));
    for (let i = 1; i < all.length; i++) expect(all[i]!.prevHash).toBe(all[i - 1]!.hash);
    expect(all).toEqual(await records('?limit=1000'));
  });
});

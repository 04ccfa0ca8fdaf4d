/**
 * `audit.webhook` on a real server: the records it stores reach a collector on loopback (let
 * through the outbound SSRF policy by push.allowlist and push.allowHttp, as push tests do), with
 * the configured headers, in seq order.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/store/audit-store.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('audit webhook', () => {
  let s: TestServer;
  let collector: http.Server;
  const received: Array<{ record: AuditRecord; auth: string | undefined }> = [];
  let onRecord: (() => void) | undefined;

  beforeAll(async () => {
    collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ record: JSON.parse(Buffer.concat(chunks).toString('utf8')) as AuditRecord, auth: req.headers.authorization });
        res.writeHead(204).end();
        onRecord?.();
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/siem`;
    s = await startTestServer({
      auth: { mode: 'required' },
      push: { allowHttp: true, allowlist: ['127.0.0.1'] },
      audit: { webhook: { url, headers: { Authorization: 'Bearer siem-token' } } },
    });
  });
  afterAll(async () => {
    await s?.stop();
    collector?.close();
  });

  /** Resolves once the collector holds a record matching `test`. */
  const receivedWhere = (test: (r: AuditRecord) => boolean) =>
    new Promise<AuditRecord>((resolve) => {
      const check = () => {
        const hit = received.find((x) => test(x.record));
        if (hit) resolve(hit.record);
      };
      onRecord = check;
      check();
    });

  it('forwards each stored record with its seq and hash and the configured headers', async () => {
    const created = await fetch(`${s.http}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.firstAdminKey! },
      body: JSON.stringify({ subject: 'forwarded', scopes: [] }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const record = await receivedWhere((r) => r.target === `apikey:${id}`);
    expect(record).toMatchObject({ action: 'apikey.created', outcome: 'success', details: { subject: 'forwarded' } });
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(received.every((x) => x.auth === 'Bearer siem-token')).toBe(true);
    const seqs = received.map((x) => x.record.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs[0]).toBe(1);
  });
});

/**
 * Usage records never carry what an anonymous caller makes up (issue 25 U1): before, 3,000
 * requests to random paths took `?by=operation` from 230 groups to 3,230, each operation a raw
 * path (`GET /.well-known/oauth-protected-resource/a2a/ahvmocnkqwcj`). Unknown routes, unknown
 * agents and unknown MCP methods are now one value each: `other`, as on /metrics.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../support/server.js';

const KEY = 'usage-bounded-test-key-0123456789';
/** Letters only, like the red team's `ahvmocnkqwcj`: no digit to look like an id. */
const word = () =>
  Array.from(randomBytes(12))
    .map((b) => String.fromCharCode(97 + (b % 26)))
    .join('');

describe('usage records of unknown routes, agents and methods', () => {
  it('record one bounded value, never the path, agent id or method the caller made up', async () => {
    const s = await startTestServer(
      { auth: { mode: 'required', apiKeys: [{ key: KEY, subject: 'alice', scopes: ['a2a:publish', 'a2a:discover', 'mcp:tools'] }] }, agents: [{ id: 'echo', builtin: 'echo' }] },
      { keepData: true },
    );
    const made: string[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const [a, b, c, d] = [word(), word(), word(), word()];
        made.push(a, b, c, d);
        await (await fetch(`${s.http}/.well-known/oauth-protected-resource/a2a/${a}`)).arrayBuffer();
        await (await fetch(`${s.http}/${b}/${b}`)).arrayBuffer();
        // An agent that does not exist, named by a tenant on the shared endpoint, by a caller with a key.
        await (
          await fetch(`${s.http}/a2a`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': KEY },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { tenant: c, id: 'x' } }),
          })
        ).arrayBuffer();
        await (
          await fetch(`${s.http}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEY, 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: `${d}/${d}`, params: {} }),
          })
        ).arrayBuffer();
      }
    } finally {
      await s.stop();
    }
    const db = new Database(path.join(s.dataDir, 'agentport.db'), { readonly: true });
    const rows = db.prepare('select operation, agent from usage_records_all').all() as Array<{ operation: string; agent: string | null }>;
    db.close();
    await rm(s.dataDir, { recursive: true, force: true });
    expect(rows.length).toBeGreaterThanOrEqual(16);
    for (const r of rows) for (const w of made) expect(`${r.operation} ${r.agent}`).not.toContain(w);
    const operations = new Set(rows.map((r) => r.operation));
    expect(operations.has('GET other'), [...operations].join(', ')).toBe(true);
    expect(operations.has('other'), [...operations].join(', ')).toBe(true);
    // Sixteen made-up names, a handful of groups.
    expect(operations.size).toBeLessThanOrEqual(4);
  });
});

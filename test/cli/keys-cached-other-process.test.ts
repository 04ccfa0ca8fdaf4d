/**
 * The built `agentport` command, run as a separate process against the SQLite file of a server
 * whose authenticator holds a key in its record cache (ADR 0052): `keys revoke` and `users
 * set-scopes` count on the server's very next request, with no message between the processes but
 * the database itself (migration 0026's triggers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, StoredApiKeys } from '../../src/auth/api-keys.js';
import { openSqliteStore } from '../../src/store/index.js';
import { runWithOutputInFiles } from './run-built-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentport-keys-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (p: Promise<{ scopes: readonly string[] }>) =>
  p.then(
    (principal) => principal.scopes.join(' '),
    (e: Error) => e.message,
  );

describe('a cached API key changed by the agentport command in another process', () => {
  it('is refused once revoked, and narrowed once its owner loses a scope, on the next request', async () => {
    const file = path.join(dir, 'agentport.db');
    const store = await openSqliteStore({ file });
    try {
      await store.migrate();
      const now = Date.now();
      await store.oauth.putUser({ username: 'olga', passwordHash: 'x', scopes: ['a2a:discover', 'a2a:publish'], createdAt: now - 1000 });
      const owned = createApiKey({ subject: 'olga', scopes: ['a2a:discover', 'a2a:publish'], owner: 'olga', now });
      const plain = createApiKey({ subject: 'ci-bot', scopes: ['a2a:publish'], now });
      await store.putApiKey(owned.record);
      await store.putApiKey(plain.record);
      let reads = 0;
      const keys = new StoredApiKeys({
        getApiKey: (id) => {
          reads++;
          return store.getApiKey(id);
        },
        credentialsGeneration: () => store.credentialsGeneration(),
      });
      for (let i = 0; i < 2; i++) {
        expect(await outcome(keys.authenticate(owned.key))).toBe('a2a:discover a2a:publish');
        expect(await outcome(keys.authenticate(plain.key))).toBe('a2a:publish');
      }
      expect(reads).toBe(2); // the second round came from the cache

      const storage = `sqlite:${file}`;
      const scoped = await runWithOutputInFiles(['users', 'set-scopes', 'olga', '--scope', 'a2a:discover', '--storage', storage], { cwd: dir });
      expect(scoped.code, scoped.stderr).toBe(0);
      expect(await outcome(keys.authenticate(owned.key))).toBe('a2a:discover');

      const revoked = await runWithOutputInFiles(['keys', 'revoke', plain.record.keyId, '--storage', storage], { cwd: dir });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(await outcome(keys.authenticate(plain.key))).toBe('The API key has been revoked');
    } finally {
      await store.close();
    }
  });
});

/**
 * The test suite's scrypt cost (src/auth/oauth/password-hash.ts, vitest.config.ts `env`): the
 * suite hashes at 2^10, and only under the test runner. A process without VITEST (any
 * deployment) hashes at the product's 2^15 whatever AGENTPORT_TEST_SCRYPT_LOG_N says, as does a
 * test process given a value outside 10–14. Hashes of either cost verify in the other process:
 * each hash carries its parameters. The children run the compiled module and end before the test.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { hashPassword, verifyPassword } from '../../../src/auth/oauth/password-hash.js';
import { requireBuilt, ROOT } from '../../support/fresh-build.js';

requireBuilt('dist/auth/oauth/password-hash.js');

/** A hash made by a fresh node process with exactly `env` (and PATH). */
function hashInChild(env: Record<string, string>, password: string): string {
  const module = path.join(ROOT, 'dist/auth/oauth/password-hash.js');
  const script = `import(${JSON.stringify(module)}).then(async (m) => process.stdout.write(await m.hashPassword(${JSON.stringify(password)})))`;
  return execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
}

describe('scrypt cost of new password hashes', () => {
  it('is 2^10 in the suite, and such a hash verifies', async () => {
    expect(process.env.AGENTPORT_TEST_SCRYPT_LOG_N).toBe('10');
    const hash = await hashPassword('twelve chars ok');
    expect(hash).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(await verifyPassword('twelve chars ok', hash)).toBe(true);
    expect(await verifyPassword('twelve chars no', hash)).toBe(false);
  });

  it('is read at each hash: without the variable this process hashes at 2^15 again', async () => {
    vi.stubEnv('AGENTPORT_TEST_SCRYPT_LOG_N', undefined);
    try {
      expect(await hashPassword('twelve chars ok')).toMatch(/^scrypt\$15\$8\$1\$/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('stays 2^15 outside the test runner whatever AGENTPORT_TEST_SCRYPT_LOG_N says, and verifies here', async () => {
    const hash = hashInChild({ AGENTPORT_TEST_SCRYPT_LOG_N: '10' }, 'twelve chars ok');
    expect(hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(await verifyPassword('twelve chars ok', hash)).toBe(true);
    expect(await verifyPassword('twelve chars no', hash)).toBe(false);
  });

  it.for(['9', '15', 'low'])('stays 2^15 under the test runner for AGENTPORT_TEST_SCRYPT_LOG_N=%s', (value) => {
    expect(hashInChild({ VITEST: 'true', AGENTPORT_TEST_SCRYPT_LOG_N: value }, 'twelve chars ok')).toMatch(/^scrypt\$15\$8\$1\$/);
  });
});

/**
 * Passwords of local users, hashed with scrypt (memory-hard, in node:crypto, so no dependency).
 * N = 2^15, r = 8, p = 1 is 32 MiB and ~50-100 ms per hash on a server core: OWASP's scrypt
 * minimum is N = 2^17 with r = 8 (128 MiB); we stay at 32 MiB so a burst of logins cannot exhaust
 * memory of a small instance, and record the parameters in each hash so they can be raised later
 * without invalidating existing users.
 *
 * Format: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/**
 * log2 N of a new hash. The test suite lowers it with AGENTPORT_TEST_SCRYPT_LOG_N (10–14;
 * vitest.config.ts): a hash at 2^15 cost ~300 ms of CPU on the loaded 2-core test machine, and
 * every server start with authentication required and no users made one (the first admin user), as
 * did every user a test creates and every sign-in (issue 26, docs/benchmarks.md "suite35"). Honoured
 * only under the test runner (VITEST, which vitest sets in its workers and their children inherit):
 * a deployment cannot weaken its hashes with it. Read at each hash, so a test can put the product's
 * cost back for itself (vi.stubEnv). Verification reads the parameters from each hash.
 */
function newHashLogN(): number {
  return testLogN() ?? LOG_N;
}

function testLogN(): number | undefined {
  if (!process.env.VITEST) return undefined;
  const logN = Number(process.env.AGENTPORT_TEST_SCRYPT_LOG_N);
  return Number.isInteger(logN) && logN >= 10 && logN < 15 ? logN : undefined;
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const logN = newHashLogN();
  const key = await derive(password, salt, logN, R, P);
  return `scrypt$${logN}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A well-formed hash of nothing, compared against when the user does not exist, so a miss costs what a hit does. */
let dummy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const encoded = stored ?? (await (dummy ??= hashPassword(randomBytes(16).toString('hex'))));
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const actual = await derive(password, Buffer.from(parts[4]!, 'base64url'), logN, r, p);
  return stored !== undefined && expected.length === actual.length && timingSafeEqual(expected, actual);
}

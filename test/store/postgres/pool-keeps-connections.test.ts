/**
 * The PostgreSQL store's pool keeps its connections while they are idle (issue 26, pg37;
 * src/store/postgres/postgres-store.ts, storePoolConfig): pg's default closed a connection idle for
 * 10 s, so under a steady load the connections the pool did not need at the moment were closed and
 * opened again at the next burst (a new backend, the hot statements parsed and planned again).
 * pg-pool arms a timer when a connection is released; the timers are faked from before the release,
 * so a minute passes at once, and the pool is read before and after.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storePoolConfig } from '../../../src/store/postgres/postgres-store.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
let pool: pg.Pool | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await pool?.end();
  pool = undefined;
});

describe('PostgreSQL store pool', () => {
  it('keeps three connections a burst opened through a minute of idleness', async () => {
    pool = new pg.Pool(storePoolConfig({ connectionString: url }, 'public'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Three statements at once: three connections, each released to the idle list with its timer.
    await Promise.all([1, 2, 3].map((n) => pool!.query('select pg_sleep(0.05), $1::int as n', [n])));
    expect(pool.totalCount).toBe(3);
    expect(pool.idleCount).toBe(3);
    vi.advanceTimersByTime(60_000);
    vi.useRealTimers();
    // A closed connection leaves the pool when its socket ends: give that a moment of real time.
    await new Promise((r) => setTimeout(r, 200));
    expect(pool.totalCount).toBe(3);
    expect(pool.idleCount).toBe(3);
    const { rows } = await pool.query<{ ok: number }>('select 1 as ok');
    expect(rows[0]!.ok).toBe(1);
  });
});

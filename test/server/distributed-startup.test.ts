/**
 * Distributed mode refuses to start, with a message that says what to fix, when PostgreSQL or Redis
 * cannot be reached or the database schema does not match this build; and /readyz reports each
 * backing service when it does start.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';

const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.AGENTPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = `startup_${randomBytes(4).toString('hex')}`;
const schemas: string[] = [];
const schema = (): string => {
  const s = `${run}_${schemas.length}`;
  schemas.push(s);
  return s;
};

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  for (const s of schemas) await sql(`drop schema if exists "${s}" cascade`);
});

const distributed = (over: Record<string, unknown> = {}) => ({
  storage: { driver: 'postgres', url: PG_URL, schema: schema() },
  bus: { driver: 'redis', url: REDIS_URL, prefix: run },
  ...over,
});

describe('distributed mode at start', () => {
  it('names an unreachable PostgreSQL (without its password) and how to fix it', async () => {
    const port = await closedPort();
    const url = `postgres://agent:s3cret@127.0.0.1:${port}/db`;
    const err = await startTestServer(distributed({ storage: { driver: 'postgres', url, schema: schema() } })).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/storage: PostgreSQL at .*127\.0\.0\.1:\d+.* is unreachable/);
    expect(err?.message).not.toContain('s3cret');
  });

  it('names an unreachable Redis', async () => {
    const port = await closedPort();
    const err = await startTestServer(distributed({ bus: { driver: 'redis', url: `redis://127.0.0.1:${port}`, prefix: run } })).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain(`127.0.0.1:${port}`);
  }, 20_000);

  it('refuses the Redis bus over SQLite', async () => {
    await expect(startTestServer({ bus: { driver: 'redis', url: REDIS_URL } })).rejects.toThrow(/shared PostgreSQL store|postgres/);
  });

  it('with migrate: false, refuses a database whose migrations are pending and says to run agentport db migrate', async () => {
    const s = schema();
    await expect(startTestServer(distributed({ storage: { driver: 'postgres', url: PG_URL, schema: s, migrate: false } }))).rejects.toThrow(/agentport db migrate/);
  });

  it('refuses a database migrated by a newer Agentport', async () => {
    const s = schema();
    const server = await startTestServer(distributed({ storage: { driver: 'postgres', url: PG_URL, schema: s } }));
    await server.stop();
    await sql(`insert into "${s}".kysely_migration (name, timestamp) values ('9999_from_the_future', now()::text)`);
    await expect(startTestServer(distributed({ storage: { driver: 'postgres', url: PG_URL, schema: s } }))).rejects.toThrow(/newer than this Agentport.*9999_from_the_future/);
  });

  it('reports storage, bus and push outbox in /readyz', async () => {
    const server = await startTestServer(distributed());
    try {
      const res = await fetch(`${server.http}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', checks: { storage: 'ok', bus: 'ok', push: 'ok' }, measures: { bus: { roundTripMs: expect.any(Number) }, push: { pending: 0, oldestAgeMs: 0 } } });
    } finally {
      await server.stop();
    }
  });
});

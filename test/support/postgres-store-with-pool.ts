/**
 * A PostgreSQL store migrated into a fresh schema of its own, with a one-connection pool on that
 * schema for the test's own reads, both closed and the schema dropped after the file's tests.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { dropSchema } from './cluster.js';

export interface StoreWithPool {
  /** the schema's name */
  readonly schema: string;
  readonly store: PostgresStore;
  readonly pool: pg.Pool;
}

/** Registers the set-up and tear-down; the returned object's fields are set once `beforeAll` ran. */
export function postgresStoreWithPool(schemaPrefix: string): StoreWithPool {
  const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `${schemaPrefix}_${randomBytes(4).toString('hex')}`;
  const held = { schema } as { schema: string; store: PostgresStore; pool: pg.Pool };
  beforeAll(async () => {
    held.store = await openPostgresStore({ connectionString: url, schema, connectionTimeoutMs: 5000 });
    await held.store.migrate();
    held.pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 1 });
  });
  afterAll(async () => {
    await held.pool?.end();
    await held.store?.close();
    await dropSchema(url, schema);
  });
  return held;
}

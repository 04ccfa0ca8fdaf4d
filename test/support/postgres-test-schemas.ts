/**
 * A test file's PostgreSQL schemas (AGENTPORT_TEST_PG, default the local server): the server is
 * reached before any test (an unreachable one fails the file, never skips it: a skipped suite would
 * let a broken PostgreSQL store pass), one template schema is migrated once for the file's copies
 * (store-templates.ts), each test names a fresh schema, and every schema named is dropped at the end.
 * Call it at a file's top level: it registers the file's beforeAll and afterAll.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { postgresTemplate, type PostgresTemplate } from './store-templates.js';

export interface PostgresTestSchemas {
  readonly url: string;
  /** this file's prefix of every schema it names */
  readonly run: string;
  /** a schema name not used before, dropped at the end */
  fresh(): string;
  /** the migrated template (set before the file's first test) */
  readonly template: PostgresTemplate;
}

export function postgresTestSchemas(): PostgresTestSchemas {
  const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
  const run = `t_${randomBytes(5).toString('hex')}`;
  const schemas: string[] = [];
  let template: PostgresTemplate | undefined;

  beforeAll(async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`PostgreSQL unreachable at ${url} (set AGENTPORT_TEST_PG): ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => {});
    }
    schemas.push(`${run}_template`); // dropped at the end with the others
    template = await postgresTemplate(url, `${run}_template`);
  });

  afterAll(async () => {
    await template?.close();
    if (schemas.length === 0) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      for (const s of schemas) await client.query(`drop schema if exists "${s}" cascade`);
    } finally {
      await client.end();
    }
  });

  return {
    url,
    run,
    fresh() {
      const schema = `${run}_${schemas.length}`;
      schemas.push(schema);
      return schema;
    },
    get template() {
      if (!template) throw new Error('the PostgreSQL template is made in beforeAll: read it inside a test');
      return template;
    },
  };
}

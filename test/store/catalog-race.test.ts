/**
 * Which migration errors are another schema's catalog race (safe to retry) and which are ours. The
 * errors are produced by a real PostgreSQL, so the predicate is held against the server's own
 * codes and wording rather than strings written here.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOtherSchemaCatalogRace } from '../../src/store/migrations/catalog-race.js';

const url = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ours = `t_${randomBytes(5).toString('hex')}_ours`;
const other = `t_${randomBytes(5).toString('hex')}_other`;
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });

async function errorOf(text: string): Promise<unknown> {
  try {
    await client.query(text);
  } catch (err) {
    return err;
  }
  throw new Error(`expected PostgreSQL to refuse: ${text}`);
}

beforeAll(async () => {
  await client.connect();
  await client.query(`create schema "${ours}"; create schema "${other}"`);
});

afterAll(async () => {
  await client.query(`drop schema if exists "${ours}" cascade; drop schema if exists "${other}" cascade`);
  await client.end();
});

describe('isOtherSchemaCatalogRace', () => {
  it('retries a table of another schema that is gone (42P01), not one of ours', async () => {
    const theirs = await errorOf(`select * from "${other}".usage_daily`);
    const mine = await errorOf(`select * from "${ours}".usage_daily`);
    expect((theirs as { code: string }).code).toBe('42P01');
    expect(isOtherSchemaCatalogRace(theirs, ours)).toBe(true);
    expect(isOtherSchemaCatalogRace(mine, ours)).toBe(false);
  });

  it('retries another schema that is gone (3F000), not ours', async () => {
    const gone = `${other}_gone`;
    const theirs = await errorOf(`create table "${gone}".t (a int)`);
    expect((theirs as { code: string }).code).toBe('3F000');
    expect(isOtherSchemaCatalogRace(theirs, ours)).toBe(true);
    expect(isOtherSchemaCatalogRace(theirs, gone)).toBe(false);
  });

  it('retries a column gone mid-walk (42703) only when no migration of ours ran', async () => {
    await client.query(`create table "${other}".usage_hourly (a int)`);
    const column = await errorOf(`select dur_le_23 from "${other}".usage_hourly`);
    expect((column as { code: string }).code).toBe('42703');
    // the Migrator failed in its catalog walk: nothing of ours ran, safe to retry
    expect(isOtherSchemaCatalogRace(column, ours, true)).toBe(true);
    // a migration of ours failed this way: not a race, never retried
    expect(isOtherSchemaCatalogRace(column, ours, false)).toBe(false);
    expect(isOtherSchemaCatalogRace(column, ours)).toBe(false);
  });

  it('retries a cache lookup that missed another schema dropped mid-walk (XX000) only when no migration of ours ran', () => {
    // PostgreSQL raises this internal error only when a drop races a catalog read, which no query
    // can make happen on demand: the fields are those a full run's failure printed.
    const race = Object.assign(new Error('cache lookup failed for namespace 90401'), { code: 'XX000', where: 'parallel worker', routine: 'generate_qualified_relation_name' });
    expect(isOtherSchemaCatalogRace(race, ours, true)).toBe(true);
    expect(isOtherSchemaCatalogRace(race, ours, false)).toBe(false);
    expect(isOtherSchemaCatalogRace(race, ours)).toBe(false);
    for (const kind of ['relation', 'type', 'attribute']) {
      expect(isOtherSchemaCatalogRace(Object.assign(new Error(`cache lookup failed for ${kind} 12`), { code: 'XX000' }), ours, true), kind).toBe(true);
    }
    // another internal error is ours to report, nothing ran or not
    expect(isOtherSchemaCatalogRace(Object.assign(new Error('could not open file "base/1/2": No such file'), { code: 'XX000' }), ours, true)).toBe(false);
  });

  it('does not retry an unqualified missing relation or any other error', async () => {
    const unqualified = await errorOf('select * from no_such_table_here');
    const syntax = await errorOf('selec 1');
    expect(isOtherSchemaCatalogRace(unqualified, ours)).toBe(false);
    expect(isOtherSchemaCatalogRace(syntax, ours)).toBe(false);
    expect(isOtherSchemaCatalogRace(new Error('x'), ours)).toBe(false);
    // nothing ran, but not a catalog error: still ours to report
    expect(isOtherSchemaCatalogRace(syntax, ours, true)).toBe(false);
  });
});

/**
 * The statement runner's cancel: a statement whose task was cancelled before it got its slot or
 * its connection does not run (test/agents/table-expert/skills.test.ts's cancel timed out on a busy
 * machine: the cancel came while the first statement still waited for the datasets).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryError } from '../../../../src/agents/table-expert/engine/errors.js';
import { StatementRunner } from '../../../../src/agents/table-expert/engine/statement-runner.js';
import { parseTableExpertOptions } from '../../../../src/agents/table-expert/index.js';

const limits = parseTableExpertOptions({ limits: { timeoutMs: '2s', maxConcurrentQueries: 1 } }, { index: 0, baseDir: '.' }).limits;

describe('StatementRunner, a statement cancelled before it starts', () => {
  let db: DuckDBInstance;
  let runner: StatementRunner;
  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:', { threads: '1' });
    runner = new StatementRunner(db, limits, (m) => m);
  });
  afterAll(() => {
    runner.close();
    db.closeSync();
  });

  it('is refused as canceled without running, and frees its slot for the next', async () => {
    const cancel = new AbortController();
    cancel.abort();
    let ran = false;
    const refused = await runner
      .withConnection({ signal: cancel.signal }, async (conn) => {
        ran = true;
        await conn.run('SELECT count(*) FROM range(1000000) a, range(1000000) b');
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(QueryError);
    expect((refused as QueryError).code).toBe('canceled');
    expect(ran).toBe(false);
    // one slot (maxConcurrentQueries: 1): the next statement gets it at once
    const next = await runner.withConnection({}, async (conn) => (await conn.runAndReadAll('SELECT 41 + 1 AS n')).getRowsJson());
    expect(next).toEqual([[42]]);
  });
});

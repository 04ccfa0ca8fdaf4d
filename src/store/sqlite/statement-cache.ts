/**
 * Prepared statements kept by their SQL text, for the statements Kysely writes per call.
 *
 * Kysely's SQLite driver prepares every query it runs, and better-sqlite3 keeps no statement
 * cache: the timers that read and write through Kysely (the quota re-read every 2 s, the usage
 * rollup steps, the OAuth sweep, the management API's reads) parsed and planned their SQL again on
 * every tick (issue 26: under callgrind, statement preparation was ~8 % of the main thread). The
 * same text gets the same statement back; SQLite re-prepares it by itself if the schema changed
 * under it (a migration).
 *
 * Bounded, least recently used first out: a query whose text varies with its input (an `in` list)
 * must not hold statements forever. Safe to share because better-sqlite3 runs a statement to its
 * end within one call (`all`, `get`, `run`); the one exception, `iterate`, is Kysely's stream,
 * which gets a statement of its own.
 */
import type Sqlite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Enough for every statement text a server repeats; the rest come and go. */
const DEFAULT_LIMIT = 200;

export class StatementCache {
  readonly #statements = new Map<string, Sqlite.Statement>();

  constructor(
    private readonly raw: Sqlite.Database,
    private readonly limit = DEFAULT_LIMIT,
  ) {}

  /** The statement for `sql`, prepared once while it stays among the `limit` most recently used. */
  prepare(sql: string): Sqlite.Statement {
    const statements = this.#statements;
    const cached = statements.get(sql);
    if (cached) {
      // Map keeps insertion order: re-inserting makes it the most recently used.
      statements.delete(sql);
      statements.set(sql, cached);
      return cached;
    }
    const statement = this.raw.prepare(sql);
    statements.set(sql, statement);
    if (statements.size > this.limit) statements.delete(statements.keys().next().value!);
    return statement;
  }

  get size(): number {
    return this.#statements.size;
  }

  /** The database as Kysely's SQLite dialect takes it, with its queries prepared through this cache. */
  forKysely(): SqliteDatabase {
    return {
      close: () => this.raw.close(),
      prepare: (sql: string) => {
        const statement = this.prepare(sql);
        // A stream iterates its statement across awaits: it must not share it with other queries.
        return { reader: statement.reader, all: (p) => statement.all(p), run: (p) => statement.run(p), iterate: (p) => this.raw.prepare(sql).iterate(p) };
      },
    };
  }
}

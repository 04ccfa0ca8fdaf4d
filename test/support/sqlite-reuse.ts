/**
 * A SQLite store kept open from one test to the next, its file put back to the migrated template's
 * rows in between: a new store on a file starts a commit thread and a checkpointer thread, each a
 * Node worker whose start and end cost 0.1–0.2 s of CPU, so a contract that opened a store per test
 * spent a third of the `unit` project's CPU on them (issue 26, docs/benchmarks.md "suiteu37").
 *
 * Emptying keeps what a store is made of (its connection, its threads and their connections, the
 * prepared statements: the tables stay the same ones) and resets what it remembers of the rows
 * (SqliteStore.forgetRowsForTests). A store is not kept when it is no longer as it was opened
 * (closed, a thread ended, a commit failed on the file) or when the test changed its file's schema
 * (a table, index or trigger the template has not, or lacks): the next test gets a new one.
 * test/store/sqlite-reuse.test.ts checks that an emptied store answers as a new one.
 */
import Sqlite from 'better-sqlite3';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/**
 * Puts every table of `file` (sqlite_sequence included) back to the rows of `template`, the file it
 * was copied from, in one transaction on a connection of its own. False, changing nothing, when
 * the two schemas differ.
 */
export function resetToTemplate(file: string, template: string): boolean {
  const raw = new Sqlite(file);
  try {
    raw.pragma('busy_timeout = 5000');
    // A test's file: a power loss is of no concern, a sync per reset is.
    raw.pragma('synchronous = OFF');
    raw.prepare('attach database ? as template').run(template);
    const schema = (db: string) => JSON.stringify(raw.prepare(`select type, name, tbl_name, sql from ${db}.sqlite_master order by type, name`).all());
    if (schema('main') !== schema('template')) return false;
    const tables = raw.prepare("select name from template.sqlite_master where type = 'table'").pluck().all() as string[];
    // A trigger writes to another table (the credentials generation): its table is emptied and
    // refilled first, the tables it writes to after it.
    const triggered = new Set(raw.prepare("select tbl_name from template.sqlite_master where type = 'trigger'").pluck().all() as string[]);
    const ordered = [...tables.filter((t) => triggered.has(t)), ...tables.filter((t) => !triggered.has(t))];
    const statements = ordered.flatMap((t) => [raw.prepare(`delete from main."${t}"`), raw.prepare(`insert into main."${t}" select * from template."${t}"`)]);
    raw.transaction(() => {
      for (const s of statements) s.run();
    })();
    return true;
  } finally {
    raw.close();
  }
}

/**
 * Empties `store`'s file back to `template` and has the store forget its rows: true when it can
 * serve the next test as a new store would, false when it must be closed and not used again.
 */
export function emptyForNextTest(store: SqliteStore, file: string, template: string): boolean {
  // Both synchronous, one after the other: nothing of the store runs in between.
  return resetToTemplate(file, template) && store.forgetRowsForTests();
}

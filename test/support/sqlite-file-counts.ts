/** What a SQLite store's file holds, read on a connection of the test's own (not the store's). */
import Sqlite from 'better-sqlite3';

/** Tasks in the file. */
export function tasksInFile(file: string): number {
  const raw = new Sqlite(file, { readonly: true });
  try {
    return (raw.prepare('select count(*) as n from tasks').get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

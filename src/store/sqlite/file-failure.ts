/**
 * Which SQLite errors are failures of the database file itself, the ones `/readyz` reports until a
 * restart (issue 25 D7b), told apart from a busy lock or a constraint.
 */

/** The fixed words `/readyz` shows for a failure of the file itself; others (a busy lock, a constraint) are not. */
export function fileFailure(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'damaged';
  if (code.startsWith('SQLITE_IOERR')) return 'I/O error';
  return undefined;
}

/**
 * Kysely's Migrator finds its own tables by introspecting every table of every schema. In a shared
 * PostgreSQL database a schema (3F000) or a table (42P01) that someone else drops during that
 * catalog walk fails the walk before any migration ran, naming the other schema. Such an error is
 * safe to retry (the Migrator's lock holds); one naming our own schema is not.
 */
export function isOtherSchemaCatalogRace(error: unknown, ownSchema: string | undefined): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e?.message !== 'string') return false;
  if (e.code === '3F000') return !(ownSchema !== undefined && e.message.includes(`"${ownSchema}"`));
  if (e.code === '42P01') {
    // `relation "<schema>.<table>" does not exist`: only a table of another, named schema.
    const named = /relation "([^".]+)\.[^"]+" does not exist/.exec(e.message)?.[1];
    return named !== undefined && named !== ownSchema;
  }
  return false;
}

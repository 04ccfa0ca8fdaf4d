/**
 * Kysely writes the SQL, better-sqlite3 runs it: a query is built and compiled once, with a named
 * slot as each parameter's value, and prepared once; the hot path then binds positional values
 * straight into the prepared statement, with no query building per call.
 */
import { sql, type Compilable, type RawBuilder } from 'kysely';

/** A parameter of a query compiled once; the name only pins the binding order. */
export function slot<T>(name: string): RawBuilder<T> {
  return sql<T>`${name}`;
}

/**
 * The SQL of `query`, after checking that its parameters are exactly `names` in that order, so
 * callers can bind positionally without depending on how Kysely orders what it emits.
 */
export function compileWithSlots(query: Compilable, names: readonly string[]): string {
  const compiled = query.compile();
  const params = compiled.parameters;
  if (params.length !== names.length || params.some((p, i) => p !== names[i])) {
    throw new Error(`compiled statement binds [${params.join(', ')}], expected [${names.join(', ')}]: ${compiled.sql}`);
  }
  return compiled.sql;
}

/**
 * One execution of a named prepared statement, handed to the pool as a ready query object.
 *
 * Why (issue 26, pgsrv15): given a config object (`{ name, text, values }`), pg's Query copies it
 * first, property descriptor by property descriptor (`normalizeQueryConfig`: `Object.create` +
 * `defineProperties(getOwnPropertyDescriptors(…))`), ~20 µs on this VM a statement, more than the
 * rest of the query's set-up. Given the text as a string, pg builds its config as a plain object
 * and copies nothing; the name is set after, as the config would have set it. A query object (a
 * "submittable") is run by the client as it is; the pool still acquires and releases the client
 * around it and settles its promise from the query's end, as for a config object.
 */
import pg from 'pg';

/** A statement run by name: parsed once a connection, then bound and executed. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

class NamedQuery extends pg.Query {
  /** pg's own field, which a config object's `name` sets; not in @types/pg's declaration of Query */
  declare name: string;

  constructor(statement: NamedStatement, values: readonly unknown[]) {
    super(statement.text, values as unknown[]);
    this.name = statement.name;
  }
}

/**
 * `statement` with `values` over a connection of `pool`, as `pool.query({ ...statement, values })`.
 * The pool answers a query object with the promise of its result when no callback is given
 * (pg-pool's `query`); @types/pg declares the query object as the answer, hence the cast.
 */
export function queryNamed<R extends pg.QueryResultRow>(pool: pg.Pool, statement: NamedStatement, values: readonly unknown[]): Promise<pg.QueryResult<R>> {
  return pool.query(new NamedQuery(statement, values)) as unknown as Promise<pg.QueryResult<R>>;
}

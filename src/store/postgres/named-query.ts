/**
 * One execution of a named prepared statement without pg's per-execution result building: the
 * PostgreSQL store's hot statements (the commit's two, the message-id lookup) go through it.
 *
 * Why (issue 26, ADR 0079): pg's own Query sends Describe with every Bind/Execute, so the server
 * answers each execution with a RowDescription that pg parses and turns into a new result's fields
 * and parsers (ADR 0077 measured it as the largest single cost the driver put on the event loop).
 * A statement's result shape is fixed by its text, so it is read once here, by its author: each
 * statement brings `readRow`, which turns a DataRow's text fields into the row; a statement whose
 * rows nobody reads brings none and its DataRows are dropped. An execution is then Bind, Execute
 * and Sync, plus Close and Parse the first time on a connection.
 *
 * The execution is a pg "submittable" (an object with `submit(connection)`, which `client.query`
 * hands the connection to, public API as pg-cursor uses it): it writes the protocol messages with
 * the connection's own parse/bind/execute/sync/close methods and is told of the answers through
 * the handle* methods the client calls on its active query. Which statements a connection holds
 * is kept here, per connection, not in pg's fields: Close before the first Parse makes that safe
 * even if a failed execution leaves it unknown whether its Parse was kept (closing a statement
 * that does not exist is not an error).
 */
import type pg from 'pg';

/** A statement run by name: parsed once a connection, then bound and executed. */
export interface NamedStatement<R = unknown> {
  readonly name: string;
  readonly text: string;
  /** the row from its DataRow's fields as text (null for SQL NULL); absent: rows are not read */
  readonly readRow?: (fields: readonly (string | null)[]) => R;
}

/** A parameter as the protocol carries it: text, bytea (binary), or NULL; numbers go as their text. */
export type ParameterValue = string | number | Buffer | null;

/** What the executions use of pg's connection: the message writers a submittable is given. */
interface ProtocolConnection {
  parse(m: { name: string; text: string }): void;
  bind(m: { statement: string; values: (string | Buffer | null)[] }): void;
  execute(m: { portal: string }): void;
  close(m: { type: 'S'; name: string }): void;
  sync(): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/** The statements each connection holds, by connection (a connection is replaced, never reused). */
const preparedOn = new WeakMap<object, Set<string>>();

type Callback<R> = (err: Error | null, result?: { rows: R[] }) => void;

class PreparedExecution<R> {
  /** set by the client (or the pool through it) before submit */
  callback: Callback<R> | undefined;
  private readonly rows: R[] = [];
  private failure: Error | undefined;
  /** this execution sent Parse: if it fails, whether the statement was kept is unknown */
  private parsing = false;
  private prepared: Set<string> | undefined;

  constructor(
    readonly statement: NamedStatement<R>,
    private readonly values: readonly ParameterValue[],
  ) {}

  submit(connection: ProtocolConnection): null {
    let prepared = preparedOn.get(connection);
    if (!prepared) preparedOn.set(connection, (prepared = new Set()));
    this.prepared = prepared;
    const { name, text } = this.statement;
    const values = this.values.map((v) => (typeof v === 'number' ? String(v) : v));
    // One write for the messages, as pg's own Query corks them.
    connection.stream.cork?.();
    try {
      if (!prepared.has(name)) {
        this.parsing = true;
        prepared.add(name);
        connection.close({ type: 'S', name });
        connection.parse({ name, text });
      }
      connection.bind({ statement: name, values });
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    const readRow = this.statement.readRow;
    if (!readRow || this.failure) return;
    try {
      this.rows.push(readRow(msg.fields));
    } catch (err) {
      // Answered at ReadyForQuery, once the server is done with the execution, as pg's Query does.
      this.failure = err as Error;
    }
  }

  handleError(err: Error): void {
    if (this.parsing) this.prepared?.delete(this.statement.name);
    this.callback?.(err);
  }

  handleReadyForQuery(): void {
    if (this.failure) this.callback?.(this.failure);
    else this.callback?.(null, { rows: this.rows });
  }

  // Messages an execution without Describe, cursor or COPY is not sent, or has nothing to do with.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/**
 * `statement` with `values` over a connection of `pool`, which the pool acquires and releases
 * around it (pg-pool settles its promise from the execution's callback; @types/pg declares the
 * submittable as the answer, hence the cast).
 */
export function queryNamed<R>(pool: pg.Pool, statement: NamedStatement<R>, values: readonly ParameterValue[]): Promise<{ rows: R[] }> {
  return pool.query(new PreparedExecution(statement, values) as unknown as pg.QueryConfig) as unknown as Promise<{ rows: R[] }>;
}

/** The same over a client already held (inside a transaction): a client answers a submittable through its callback only. */
export function queryNamedOn<R>(client: pg.ClientBase, statement: NamedStatement<R>, values: readonly ParameterValue[]): Promise<{ rows: R[] }> {
  return new Promise((resolve, reject) => {
    const execution = new PreparedExecution(statement, values);
    execution.callback = (err, result) => (err ? reject(err) : resolve(result!));
    client.query(execution as unknown as pg.QueryConfig);
  });
}

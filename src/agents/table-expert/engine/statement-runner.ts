/**
 * Runs one statement under the engine's limits: at most `maxConcurrentQueries` at once (each holds
 * a libuv thread while DuckDB works), a time limit enforced with DuckDB's interrupt and, for the
 * rare operation that does not look at interrupts, by no longer waiting for it; a row limit by
 * reading a streamed result only that far. DuckDB's errors become QueryErrors with stable codes.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBResultReader } from '@duckdb/node-api';
import type { EngineLimits } from '../options.js';
import { QueryError, queryTimeout, QueryRejectedError } from './errors.js';
import type { ColumnInfo, QueryOptions, QueryResult } from './query-types.js';
import { toJsonValue } from './values.js';

/** how long past its time limit a statement that ignores interrupts may keep its caller waiting */
const HARD_STOP_GRACE_MS = 1_000;

class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly size: number) {}
  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters.shift()?.();
    };
  }
}

export class StatementRunner {
  private readonly sem: Semaphore;
  /** idle connections, reused: at most maxConcurrentQueries exist, each runs one statement at a time */
  private readonly idle: DuckDBConnection[] = [];
  private closed = false;

  constructor(
    private readonly db: DuckDBInstance,
    private readonly limits: EngineLimits,
    /** DuckDB's message as the caller may see it */
    private readonly clean: (message: string) => string,
  ) {
    this.sem = new Semaphore(limits.maxConcurrentQueries);
  }

  async withConnection<T>(opts: QueryOptions, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) throw new QueryError('unavailable', 'the Table Expert is shutting down');
    const release = await this.sem.acquire();
    let conn: DuckDBConnection;
    try {
      conn = this.idle.pop() ?? (await this.db.connect());
    } catch (e) {
      release();
      throw e;
    }
    // A cancel that came while the statement waited for its slot or its connection (the task's
    // first statement also waits for the datasets to load) fired before anyone listened: the
    // statement would have run to its time limit, holding the slot.
    if (opts.signal?.aborted) {
      this.idle.push(conn);
      release();
      throw new QueryError('canceled', 'the query was canceled');
    }
    const timeoutMs = opts.timeoutMs ?? this.limits.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      conn.interrupt();
    }, timeoutMs);
    const onAbort = () => conn.interrupt();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const work = fn(conn).finally(() => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (this.closed) conn.closeSync();
      else this.idle.push(conn);
      // The slot frees when DuckDB is really done, not when the caller stops waiting.
      release();
    });
    let hardStop: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      hardStop = setTimeout(() => reject(queryTimeout(timeoutMs)), timeoutMs + HARD_STOP_GRACE_MS);
    });
    try {
      return await Promise.race([work, deadline]);
    } catch (e) {
      if (e instanceof QueryRejectedError || e instanceof QueryError) throw e;
      if (timedOut) throw queryTimeout(timeoutMs);
      if (opts.signal?.aborted) throw new QueryError('canceled', 'the query was canceled');
      const message = (e as Error).message ?? String(e);
      if (/out of memory/i.test(message)) throw new QueryError('memory', `the query needed more than the memory limit (${Math.round(this.limits.memoryLimit / 1048576)} MiB)`);
      if (/interrupt/i.test(message)) throw queryTimeout(timeoutMs);
      throw new QueryError('sql_error', this.clean(message));
    } finally {
      clearTimeout(hardStop);
      work.catch(() => {});
    }
  }

  /** Reads at most maxRows + 1 rows (the extra one tells that the result was cut). */
  async read(start: () => Promise<DuckDBResultReader>, opts: QueryOptions): Promise<QueryResult> {
    const maxRows = opts.maxRows ?? this.limits.maxRows;
    const t0 = performance.now();
    const reader = await start();
    const columns: ColumnInfo[] = [];
    const typeIds: number[] = [];
    for (let i = 0; i < reader.columnCount; i++) {
      columns.push({ name: reader.columnName(i), type: reader.columnType(i).toString() });
      typeIds.push(reader.columnTypeId(i));
    }
    const all = reader.getRowsJson();
    const rows = all.slice(0, maxRows).map((r) => r.map((v, i) => toJsonValue(v, typeIds[i]!, this.limits.maxCellChars)));
    return { columns, rows, rowCount: rows.length, truncated: all.length > maxRows, elapsedMs: Math.round(performance.now() - t0) };
  }

  close(): void {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.closeSync();
  }
}

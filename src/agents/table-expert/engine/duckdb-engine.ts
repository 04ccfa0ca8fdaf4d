/**
 * The Table Expert's engine: one in-memory DuckDB database per agent in which every dataset is a
 * table (files as views read live, SQLite and PostgreSQL as copies). Once the datasets are in
 * place the instance is sealed: external access off except to the dataset folders, no extension
 * installing or autoloading, no spilling to disk, configuration locked. Every statement from the
 * outside goes through the guard and runs with a time limit, a row limit and the memory limit.
 *
 * `@duckdb/node-api` is imported here only, and this module is loaded on the agent's first use,
 * so servers that never ask the Table Expert anything never load DuckDB.
 */
import path from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import type { DatasetSpec, EngineLimits, FileFormat } from '../options.js';
import { checkSqlAst, checkSqlText, QueryRejectedError } from '../sql/guard.js';
import { quoteIdent, quoteString } from '../sql/sql-text.js';
import { QueryError } from './errors.js';
import { fingerprintSqlite, loadPostgres, loadSqlite } from './external-load.js';
import { inferDates, type InferredDate } from './date-inference.js';
import { datasetRoot, fingerprintFiles, readerSql, resolveFileTables, type FileTable } from './file-sources.js';
import type { ColumnInfo, QueryOptions, QueryResult, Scope } from './query-types.js';
import { StatementRunner } from './statement-runner.js';

// the query types stay importable from the engine, where the rest of the Table Expert looks for them
export type { ColumnInfo, QueryOptions, QueryResult, Scope } from './query-types.js';

export interface TableInfo {
  name: string;
  dataset: string;
  usecase: string;
  description?: string;
  source: 'files' | 'sqlite' | 'postgres';
  format?: FileFormat;
  columns: ColumnInfo[];
  /** dates inferred when the file was loaded (engine/date-inference.ts) */
  inferred?: InferredDate[];
}

/** A file table's view over DuckDB's reader, with the dates the reader left as text or numbers inferred. */
async function createFileView(conn: DuckDBConnection, t: FileTable): Promise<InferredDate[]> {
  const from = readerSql(t);
  const prepared = await conn.prepare(`SELECT * FROM ${from} LIMIT 0`);
  const columns: ColumnInfo[] = [];
  for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i).toString() });
  prepared.destroySync();
  const { select, inferred } = await inferDates(conn, t.name, from, columns);
  await conn.run(`CREATE OR REPLACE VIEW ${quoteIdent(t.name)} AS SELECT ${select} FROM ${from}`);
  return inferred;
}

type Entry = { info: TableInfo; datasetIndex: number; fingerprint?: string } & ({ kind: 'files'; file: FileTable } | { kind: 'sqlite'; file: string } | { kind: 'postgres'; loadedAt: number; refreshMs: number });

const REFRESH_EVERY_MS = 2_000;
/** statements whose parse tree already passed the guard, per scope: repeated queries skip a round trip */
const GUARD_CACHE_SIZE = 500;

export class TableEngine {
  private readonly entries = new Map<string, Entry>();
  private readonly runner: StatementRunner;
  private lastRefresh = 0;
  private readonly guarded = new Map<string, true>();
  private refreshing?: Promise<void>;
  private closed = false;

  private constructor(
    private readonly db: DuckDBInstance,
    private readonly datasets: readonly DatasetSpec[],
    readonly limits: EngineLimits,
    private readonly fileTables: ReadonlyMap<number, FileTable[]>,
    /** per file dataset: the folder or file DuckDB may read */
    private readonly roots: ReadonlyMap<number, { root: string; isDir: boolean; folder: boolean }>,
  ) {
    this.runner = new StatementRunner(db, limits, (m) => this.clean(m));
  }

  static async open(datasets: readonly DatasetSpec[], limits: EngineLimits): Promise<TableEngine> {
    const fileTables = new Map<number, FileTable[]>();
    const roots = new Map<number, { root: string; isDir: boolean; folder: boolean }>();
    for (const [i, d] of datasets.entries()) {
      if (d.source.kind !== 'files') continue;
      try {
        roots.set(i, await datasetRoot(d.source.path));
        fileTables.set(i, await resolveFileTables(d.name, d.source.path, d.source.format));
      } catch (e) {
        throw new Error(`dataset "${d.name}": ${(e as Error).message}`);
      }
    }
    const db = await DuckDBInstance.create(':memory:', {
      threads: String(limits.threads),
      memory_limit: `${Math.floor(limits.memoryLimit / (1024 * 1024))}MiB`,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      allow_unsigned_extensions: 'false',
    });
    const engine = new TableEngine(db, datasets, limits, fileTables, roots);
    try {
      await engine.setUp();
    } catch (e) {
      db.closeSync();
      throw e;
    }
    return engine;
  }

  private async setUp(): Promise<void> {
    const conn = await this.db.connect();
    try {
      for (const [i, d] of this.datasets.entries()) {
        try {
          if (d.source.kind === 'sqlite') {
            for (const t of await loadSqlite(conn, d.source.file, d.source.tables)) this.add(t, i, { kind: 'sqlite', file: d.source.file });
          } else if (d.source.kind === 'postgres') {
            for (const t of await loadPostgres(conn, d.source)) this.add(t, i, { kind: 'postgres', loadedAt: Date.now(), refreshMs: d.source.refreshMs });
          }
        } catch (e) {
          throw new Error(`dataset "${d.name}": ${(e as Error).message}`);
        }
      }
      // Seal the instance before any file view exists: from here on DuckDB itself refuses files
      // outside the dataset folders, whatever a statement says.
      const dirs = new Set<string>();
      const files = new Set<string>();
      for (const r of this.roots.values()) (r.isDir ? dirs : files).add(r.isDir ? withSep(r.root) : path.resolve(r.root));
      await conn.run(`SET allowed_directories = [${[...dirs].map(quoteString).join(', ')}]`);
      await conn.run(`SET allowed_paths = [${[...files].map(quoteString).join(', ')}]`);
      await conn.run(`SET temp_directory = ''`);
      await conn.run('SET enable_external_access = false');
      await conn.run('SET lock_configuration = true');
      for (const [i, tables] of this.fileTables) {
        for (const t of tables) {
          const inferred = await createFileView(conn, t);
          this.add(t.name, i, { kind: 'files', file: t });
          this.entries.get(t.name)!.info.inferred = inferred;
        }
      }
      for (const e of this.entries.values()) {
        await this.readColumns(conn, e);
        e.fingerprint = await this.fingerprint(e.info.name);
      }
      this.lastRefresh = Date.now();
    } finally {
      conn.closeSync();
    }
  }

  private add(name: string, datasetIndex: number, source: { kind: 'files'; file: FileTable } | { kind: 'sqlite'; file: string } | { kind: 'postgres'; loadedAt: number; refreshMs: number }): void {
    const d = this.datasets[datasetIndex]!;
    const existing = this.entries.get(name);
    if (existing && existing.datasetIndex !== datasetIndex) {
      throw new Error(`table "${name}" is defined by both dataset "${this.datasets[existing.datasetIndex]!.name}" and dataset "${d.name}"; rename one`);
    }
    const info: TableInfo = {
      name,
      dataset: d.name,
      usecase: d.usecase,
      ...(d.description ? { description: d.description } : {}),
      source: source.kind,
      ...(source.kind === 'files' ? { format: source.file.format } : {}),
      columns: existing?.info.columns ?? [],
    };
    this.entries.set(name, { info, datasetIndex, ...source } as Entry);
  }

  private async readColumns(conn: DuckDBConnection, e: Entry): Promise<void> {
    const prepared = await conn.prepare(`SELECT * FROM ${quoteIdent(e.info.name)} LIMIT 0`);
    const columns: ColumnInfo[] = [];
    for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i).toString() });
    prepared.destroySync();
    e.info.columns = columns;
  }

  private visible(e: Entry, scope: Scope | undefined): boolean {
    return !scope?.usecases || scope.usecases.includes(e.info.usecase);
  }

  listTables(scope?: Scope): TableInfo[] {
    return [...this.entries.values()]
      .filter((e) => this.visible(e, scope))
      .map((e) => e.info)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  table(name: string, scope?: Scope): TableInfo | undefined {
    const e = this.entries.get(name.toLowerCase());
    return e && this.visible(e, scope) ? e.info : undefined;
  }

  /** Changes whenever the table's data may have changed. */
  async fingerprint(name: string): Promise<string> {
    const e = this.entries.get(name);
    if (!e) return 'missing';
    if (e.kind === 'files') return fingerprintFiles(e.file);
    if (e.kind === 'sqlite') return `sqlite:${await fingerprintSqlite(e.file)}`;
    return `postgres:${e.loadedAt}`;
  }

  /** Reloads copies whose source changed and folder tables that appeared; at most every 2 s. */
  refresh(force = false): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (!force && Date.now() - this.lastRefresh < REFRESH_EVERY_MS) return Promise.resolve();
    this.refreshing = this.doRefresh().finally(() => {
      this.lastRefresh = Date.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const conn = await this.db.connect();
    try {
      for (const [i, d] of this.datasets.entries()) {
        if (d.source.kind === 'files' && this.roots.get(i)?.folder) {
          const now = await resolveFileTables(d.name, d.source.path, d.source.format).catch(() => undefined);
          if (!now) continue;
          for (const t of now) {
            const e = this.entries.get(t.name);
            if (!e) {
              const inferred = await createFileView(conn, t);
              this.add(t.name, i, { kind: 'files', file: t });
              this.entries.get(t.name)!.info.inferred = inferred;
              await this.readColumns(conn, this.entries.get(t.name)!);
            }
          }
          for (const e of [...this.entries.values()]) {
            if (e.datasetIndex === i && !now.some((t) => t.name === e.info.name)) {
              await conn.run(`DROP VIEW IF EXISTS ${quoteIdent(e.info.name)}`);
              this.entries.delete(e.info.name);
            }
          }
        }
      }
      for (const e of this.entries.values()) {
        const fp = await this.fingerprint(e.info.name);
        if (e.fingerprint !== undefined && e.fingerprint !== fp) {
          if (e.kind === 'sqlite') {
            const d = this.datasets[e.datasetIndex]!;
            if (d.source.kind === 'sqlite') await loadSqlite(conn, d.source.file, [e.info.name]).catch(() => undefined);
          } else if (e.kind === 'files') {
            // A file rewritten with other columns: rebind the view.
            const inferred = await createFileView(conn, e.file).catch(() => undefined);
            if (inferred) e.info.inferred = inferred;
          }
          await this.readColumns(conn, e).catch(() => undefined);
        }
        if (e.kind === 'postgres' && Date.now() - e.loadedAt > e.refreshMs) {
          const d = this.datasets[e.datasetIndex]!;
          if (d.source.kind === 'postgres') {
            await loadPostgres(conn, { ...d.source, tables: [e.info.name] }).catch(() => undefined);
            e.loadedAt = Date.now();
          }
        }
        e.fingerprint = await this.fingerprint(e.info.name);
      }
    } finally {
      conn.closeSync();
    }
  }

  /** Runs a statement from outside: guarded, limited, scoped to the caller's usecases. */
  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult & { sql: string }> {
    const text = checkSqlText(sql, this.limits);
    return this.runner.withConnection(opts, async (conn) => {
      const tables = new Set(this.listTables(opts.scope).map((t) => t.name.toLowerCase()));
      // The verdict depends on the statement and on what the caller may read; nothing else.
      const key = `${[...tables].sort().join(',')}\u0000${text}`;
      if (!this.guarded.has(key)) {
        const serialized = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [text]);
        checkSqlAst(String(serialized.getRows()[0]?.[0] ?? ''), { tables, fileRoots: this.fileRoots(opts.scope) });
        this.guarded.set(key, true);
        if (this.guarded.size > GUARD_CACHE_SIZE) this.guarded.delete(this.guarded.keys().next().value!);
      }
      let prepared: DuckDBPreparedStatement;
      try {
        prepared = await conn.prepare(text);
      } catch (e) {
        throw new QueryError('sql_error', this.clean((e as Error).message));
      }
      if (prepared.statementType !== StatementType.SELECT) {
        prepared.destroySync();
        throw new QueryRejectedError('not_select', 'only a SELECT statement is allowed');
      }
      try {
        return { ...(await this.runner.read(() => prepared.streamAndReadUntil((opts.maxRows ?? this.limits.maxRows) + 1), opts)), sql: text };
      } finally {
        prepared.destroySync();
      }
    });
  }

  /** Runs SQL the agent wrote itself (profiles, search, the planner's statements after the guard). */
  async internal(sql: string, opts: QueryOptions & { params?: Array<string | number | boolean | null> } = {}): Promise<QueryResult> {
    return this.runner.withConnection(opts, (conn) =>
      this.runner.read(() => (opts.params ? conn.streamAndReadUntil(sql, (opts.maxRows ?? this.limits.maxRows) + 1, opts.params) : conn.streamAndReadUntil(sql, (opts.maxRows ?? this.limits.maxRows) + 1)), opts),
    );
  }

  private fileRoots(scope: Scope | undefined): string[] {
    const roots: string[] = [];
    for (const [i, r] of this.roots) {
      const d = this.datasets[i]!;
      if (scope?.usecases && !scope.usecases.includes(d.usecase)) continue;
      roots.push(path.resolve(r.root));
    }
    return roots;
  }

  /** DuckDB's message without the server's own paths. */
  private clean(message: string): string {
    let out = message;
    for (const [i, r] of this.roots) out = out.split(r.root).join(`<${this.datasets[i]!.name}>`);
    return out
      .replace(/\n+LINE \d+:[\s\S]*$/, '')
      .trim()
      .slice(0, 600);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.runner.close();
    try {
      this.db.closeSync();
    } catch {
      // already gone
    }
  }
}

function withSep(dir: string): string {
  const abs = path.resolve(dir);
  return abs.endsWith(path.sep) ? abs : abs + path.sep;
}

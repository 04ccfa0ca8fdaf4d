/**
 * SQLite files and PostgreSQL tables, copied into DuckDB tables through our own drivers
 * (better-sqlite3, pg): DuckDB's sqlite and postgres extensions are downloaded on first use, and
 * these machines have no internet. Both sources are opened read-only. Rows arrive as text into a
 * staging table and are cast once, in SQL, to the source's declared types.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteString } from '../sql/sql-text.js';

export interface SourceColumn {
  name: string;
  /** DuckDB type the staged text is cast to */
  type: string;
}

const YIELD_EVERY = 5_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Appends rows of text into a VARCHAR staging table, then casts into `table`. */
async function copyIn(conn: DuckDBConnection, table: string, columns: SourceColumn[], rows: AsyncIterable<Array<string | null>> | Iterable<Array<string | null>>): Promise<number> {
  const staging = `__staging_${table}`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdent(staging)} (${columns.map((c) => `${quoteIdent(c.name)} VARCHAR`).join(', ')})`);
  const appender = await conn.createAppender(staging, 'main', 'temp');
  let count = 0;
  try {
    for await (const row of rows) {
      for (const v of row) {
        if (v === null) appender.appendNull();
        else appender.appendVarchar(v);
      }
      appender.endRow();
      if (++count % YIELD_EVERY === 0) {
        appender.flushSync();
        await yieldToLoop();
      }
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  const select = columns.map((c) => (c.type === 'VARCHAR' ? quoteIdent(c.name) : `TRY_CAST(${quoteIdent(c.name)} AS ${c.type}) AS ${quoteIdent(c.name)}`)).join(', ');
  await conn.run(`CREATE OR REPLACE TABLE ${quoteIdent(table)} AS SELECT ${select} FROM temp.main.${quoteIdent(staging)}`);
  await conn.run(`DROP TABLE temp.main.${quoteIdent(staging)}`);
  return count;
}

/** SQLite's declared type (its affinity rules, §3.1 of the datatype docs) → DuckDB type. */
export function sqliteTypeToDuck(declared: string): string {
  const t = declared.toUpperCase();
  const dec = /(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+))?\s*\)/.exec(t);
  if (dec && Number(dec[1]) <= 38) return `DECIMAL(${dec[1]},${dec[2] ?? 0})`;
  if (t.includes('INT')) return 'BIGINT';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'VARCHAR';
  if (t.includes('BLOB') || t === '') return 'VARCHAR';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'DOUBLE';
  if (t.includes('BOOL')) return 'BOOLEAN';
  if (t.includes('DATETIME') || t.includes('TIMESTAMP')) return 'TIMESTAMP';
  if (t.includes('DATE')) return 'DATE';
  return 'DOUBLE';
}

function sqliteText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Buffer.isBuffer(v)) return null;
  return String(v);
}

export async function fingerprintSqlite(file: string): Promise<string> {
  const parts: string[] = [];
  for (const f of [file, `${file}-wal`]) {
    try {
      const s = await stat(f);
      parts.push(`${f}:${s.size}:${s.mtimeMs}`);
    } catch {
      // no WAL file
    }
  }
  return parts.join('|');
}

/** Copies the tables of a SQLite file. Returns the table names loaded. */
export async function loadSqlite(conn: DuckDBConnection, file: string, only: readonly string[] | undefined): Promise<string[]> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    const wanted = only ?? names.filter((n) => /^[a-z_][a-z0-9_]{0,62}$/i.test(n));
    for (const t of wanted) if (!names.includes(t)) throw new Error(`table "${t}" does not exist in ${file}`);
    for (const t of wanted) {
      const info = db.prepare(`SELECT name, type FROM pragma_table_info(${quoteString(t)})`).all() as Array<{ name: string; type: string }>;
      const columns = info.map((c) => ({ name: c.name, type: sqliteTypeToDuck(c.type ?? '') }));
      const stmt = db.prepare(`SELECT * FROM ${quoteIdent(t)}`).raw(true);
      const rows = (function* () {
        for (const r of stmt.iterate() as Iterable<unknown[]>) yield r.map(sqliteText);
      })();
      await copyIn(conn, t.toLowerCase(), columns, rows);
    }
    return wanted.map((t) => t.toLowerCase());
  } finally {
    db.close();
  }
}

/** PostgreSQL type OIDs (pg_type.h) → DuckDB types; anything else arrives as text. */
function pgTypeToDuck(oid: number, typmod: number): string {
  switch (oid) {
    case 20:
    case 21:
    case 23:
      return 'BIGINT';
    case 700:
    case 701:
      return 'DOUBLE';
    case 1700: {
      if (typmod < 4) return 'DOUBLE';
      const precision = ((typmod - 4) >> 16) & 0xffff;
      const scale = (typmod - 4) & 0xffff;
      return precision <= 38 ? `DECIMAL(${precision},${scale})` : 'DOUBLE';
    }
    case 16:
      return 'BOOLEAN';
    case 1082:
      return 'DATE';
    case 1114:
      return 'TIMESTAMP';
    case 1184:
      return 'TIMESTAMPTZ';
    default:
      return 'VARCHAR';
  }
}

/** Copies PostgreSQL tables (at most maxRows each) inside one READ ONLY transaction. */
export async function loadPostgres(conn: DuckDBConnection, spec: { url: string; schema: string; tables: readonly string[]; maxRows: number }): Promise<string[]> {
  const pg = (await import('pg')).default;
  // Raw text for every type: DuckDB does the casting, and dates never pass through JS Date.
  const client = new pg.Client({ connectionString: spec.url, connectionTimeoutMillis: 10_000, types: { getTypeParser: () => (v: string) => v } });
  await client.connect();
  const loaded: string[] = [];
  try {
    await client.query('BEGIN TRANSACTION READ ONLY');
    for (const [i, table] of spec.tables.entries()) {
      const [schema, name] = table.includes('.') ? (table.split('.', 2) as [string, string]) : [spec.schema, table];
      const cursor = `agentport_te_${i}`;
      await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT * FROM ${quoteIdent(schema)}.${quoteIdent(name)} LIMIT ${Math.floor(spec.maxRows)}`);
      let columns: SourceColumn[] | undefined;
      const batches = async function* (): AsyncGenerator<Array<string | null>> {
        for (;;) {
          const res = await client.query({ text: `FETCH 5000 FROM ${cursor}`, rowMode: 'array' });
          columns ??= res.fields.map((f) => ({ name: f.name, type: pgTypeToDuck(f.dataTypeID, f.dataTypeModifier) }));
          if (res.rows.length === 0) return;
          for (const r of res.rows as Array<Array<string | null>>) yield r;
        }
      };
      // Column types come with the first FETCH: read it before creating the staging table.
      const it = batches();
      const first = await it.next();
      const target = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
      const rows = (async function* () {
        if (!first.done) yield first.value;
        yield* it;
      })();
      await copyIn(conn, target, columns ?? [], rows);
      await client.query(`CLOSE ${cursor}`);
      loaded.push(target);
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end().catch(() => {});
  }
  return loaded;
}

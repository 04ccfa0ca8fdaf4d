/**
 * Writes the retail sample as Parquet files into `<dataDir>/table-expert/sample/` once, and reuses
 * them afterwards. Generation runs on first use of the agent (never during server start), into a
 * temporary folder renamed into place, so a crash never leaves half a dataset behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { quoteString } from '../sql/sql-text.js';
import { generateRetailSample, SAMPLE_SEED, SAMPLE_VERSION, type RetailSample } from './retail.js';

export const SAMPLE_TABLES = ['customers', 'products', 'orders', 'order_lines'] as const;

const COLUMNS: Record<(typeof SAMPLE_TABLES)[number], Array<[string, string]>> = {
  customers: [
    ['customer_id', 'INTEGER'],
    ['name', 'VARCHAR'],
    ['email', 'VARCHAR'],
    ['city', 'VARCHAR'],
    ['country', 'VARCHAR'],
    ['segment', 'VARCHAR'],
    ['signup_date', 'DATE'],
  ],
  products: [
    ['product_id', 'INTEGER'],
    ['name', 'VARCHAR'],
    ['category', 'VARCHAR'],
    ['unit_price', 'DECIMAL(10,2)'],
  ],
  orders: [
    ['order_id', 'INTEGER'],
    ['customer_id', 'INTEGER'],
    ['order_date', 'DATE'],
    ['status', 'VARCHAR'],
    ['channel', 'VARCHAR'],
  ],
  order_lines: [
    ['order_id', 'INTEGER'],
    ['line_number', 'INTEGER'],
    ['product_id', 'INTEGER'],
    ['quantity', 'INTEGER'],
    ['unit_price', 'DECIMAL(10,2)'],
    ['discount', 'DECIMAL(4,2)'],
    ['amount', 'DECIMAL(12,2)'],
  ],
};

const money = (cents: number): string => `${Math.trunc(cents / 100)}.${String(Math.abs(cents % 100)).padStart(2, '0')}`;
const csvField = (v: string | number): string => (typeof v === 'number' || !/[",\n]/.test(v) ? String(v) : `"${v.replace(/"/g, '""')}"`);

function rowsOf(sample: RetailSample, table: (typeof SAMPLE_TABLES)[number]): Array<Array<string | number>> {
  switch (table) {
    case 'customers':
      return sample.customers.map((c) => [c.customer_id, c.name, c.email, c.city, c.country, c.segment, c.signup_date]);
    case 'products':
      return sample.products.map((p) => [p.product_id, p.name, p.category, money(p.unit_price_cents)]);
    case 'orders':
      return sample.orders.map((o) => [o.order_id, o.customer_id, o.order_date, o.status, o.channel]);
    case 'order_lines':
      return sample.order_lines.map((l) => [l.order_id, l.line_number, l.product_id, l.quantity, money(l.unit_price_cents), money(l.discount_pct), money(l.amount_cents)]);
  }
}

const pending = new Map<string, Promise<string>>();

/** The folder holding the sample's Parquet files, generated on the first call for this dataDir. */
export function ensureSampleDataset(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, 'table-expert', 'sample');
  let p = pending.get(dir);
  if (!p) {
    p = generateInto(dir);
    pending.set(dir, p);
    p.catch(() => pending.delete(dir));
  }
  return p;
}

async function manifestMatches(dir: string): Promise<boolean> {
  try {
    const m = JSON.parse(await readFile(path.join(dir, '.sample-manifest.json'), 'utf8')) as { version?: number; seed?: number };
    return m.version === SAMPLE_VERSION && m.seed === SAMPLE_SEED;
  } catch {
    return false;
  }
}

async function generateInto(dir: string): Promise<string> {
  if (await manifestMatches(dir)) return dir;
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  const tmp = path.join(parent, `sample.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(tmp);
  try {
    const sample = generateRetailSample();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:', { threads: '1', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    const conn = await db.connect();
    try {
      for (const table of SAMPLE_TABLES) {
        const cols = COLUMNS[table];
        const csv = path.join(tmp, `${table}.csv`);
        const lines = [cols.map(([n]) => n).join(','), ...rowsOf(sample, table).map((r) => r.map(csvField).join(','))];
        await writeFile(csv, `${lines.join('\n')}\n`);
        const columns = `{${cols.map(([n, t]) => `'${n}': '${t}'`).join(', ')}}`;
        const out = path.join(tmp, `${table}.parquet`);
        await conn.run(`COPY (SELECT * FROM read_csv(${quoteString(csv)}, header = true, columns = ${columns})) TO ${quoteString(out)} (FORMAT parquet)`);
        await rm(csv);
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
    await writeFile(path.join(tmp, '.sample-manifest.json'), `${JSON.stringify({ version: SAMPLE_VERSION, seed: SAMPLE_SEED, tables: SAMPLE_TABLES }, null, 2)}\n`);
    // Another process may have finished first; its files are identical, so either copy will do.
    if (await manifestMatches(dir)) {
      await rm(tmp, { recursive: true, force: true });
      return dir;
    }
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return dir;
  } catch (e) {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    if (await manifestMatches(dir)) return dir;
    throw e;
  }
}

/**
 * Reads CSV back with an independent parser (DuckDB's `read_csv`, a dependency already), so tests
 * of the CSV export check RFC 4180 output against a reader they did not write. Every column is
 * read as text; an empty field is null.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export async function readCsv(text: string): Promise<Record<string, string | null>[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentport-csv-'));
  try {
    const file = path.join(dir, 'data.csv');
    await writeFile(file, text);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const read = await conn.runAndReadAll(`SELECT * FROM read_csv('${file}', header = true, all_varchar = true, quote = '"', escape = '"')`);
      return read.getRowObjects() as Record<string, string | null>[];
    } finally {
      conn.closeSync();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

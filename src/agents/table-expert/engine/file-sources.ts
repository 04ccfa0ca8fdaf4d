/**
 * File datasets: a file is one table, a glob (`events/*.parquet`) is one table, a folder is one
 * table per file. This module lists the files behind each table and fingerprints them (path, size,
 * mtime), so profiles are recomputed when, and only when, the data changed.
 */
import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileFormat } from '../options.js';
import { quoteString } from '../sql/sql-text.js';

export interface FileTable {
  /** table name: the dataset's name, or the file's stem inside a folder */
  name: string;
  /** what DuckDB reads: a file path or a glob */
  location: string;
  format: FileFormat;
}

const GLOB_CHARS = /[*?[{]/;

export function formatOf(file: string): FileFormat | undefined {
  const lower = file.toLowerCase().replace(/\.(gz|zst)$/, '');
  if (lower.endsWith('.parquet') || lower.endsWith('.pq')) return 'parquet';
  if (lower.endsWith('.csv') || lower.endsWith('.tsv') || lower.endsWith('.txt')) return 'csv';
  if (lower.endsWith('.json') || lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'json';
  return undefined;
}

/** A file's stem as a table name: lowercase, `_` for anything else, never starting with a digit. */
export function tableNameOf(file: string): string {
  let stem = path.basename(file).replace(/\.(gz|zst)$/i, '');
  stem = stem.slice(0, stem.length - path.extname(stem).length) || stem;
  let name = stem
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!name || /^[0-9]/.test(name)) name = `t_${name}`;
  return name.slice(0, 63);
}

/** Where a `path:` dataset lives: the folder of a glob, the folder itself, or the file. */
export async function datasetRoot(location: string): Promise<{ root: string; isDir: boolean; folder: boolean }> {
  if (GLOB_CHARS.test(location)) {
    const segments = location.split(path.sep);
    return {
      root:
        segments
          .slice(
            0,
            segments.findIndex((s) => GLOB_CHARS.test(s)),
          )
          .join(path.sep) || path.sep,
      isDir: true,
      folder: false,
    };
  }
  const info = await stat(location).catch(() => undefined);
  if (!info) throw new Error(`not found: ${location}`);
  return info.isDirectory() ? { root: location, isDir: true, folder: true } : { root: location, isDir: false, folder: false };
}

/** The tables of one `path:` dataset. Throws with a message that can follow the option's key path. */
export async function resolveFileTables(datasetName: string, location: string, format: FileFormat | undefined): Promise<FileTable[]> {
  if (GLOB_CHARS.test(location)) {
    const fmt = format ?? formatOf(location);
    if (!fmt) throw new Error(`cannot tell the format of ${location}; set format: csv | parquet | json`);
    return [{ name: datasetName, location, format: fmt }];
  }
  let info: Stats;
  try {
    info = await stat(location);
  } catch {
    throw new Error(`not found: ${location}`);
  }
  if (info.isFile()) {
    const fmt = format ?? formatOf(location);
    if (!fmt) throw new Error(`cannot tell the format of ${location}; set format: csv | parquet | json`);
    return [{ name: datasetName, location, format: fmt }];
  }
  if (!info.isDirectory()) throw new Error(`not a file or folder: ${location}`);
  const entries = (await readdir(location, { withFileTypes: true }))
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  const tables: FileTable[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const fmt = format ?? formatOf(entry);
    if (!fmt || (format && formatOf(entry) !== format)) continue;
    const name = tableNameOf(entry);
    const clash = seen.get(name);
    if (clash) throw new Error(`${clash} and ${entry} in ${location} would both be table "${name}"`);
    seen.set(name, entry);
    tables.push({ name, location: path.join(location, entry), format: fmt });
  }
  return tables;
}

/** DuckDB's reader for a table's files, as SQL. */
export function readerSql(t: FileTable): string {
  const loc = quoteString(t.location);
  switch (t.format) {
    case 'parquet':
      return `read_parquet(${loc})`;
    case 'csv':
      return `read_csv(${loc})`;
    case 'json':
      return `read_json_auto(${loc})`;
  }
}

/** Files matching a glob made of `*`, `?` and `**` segments. */
async function expandGlob(pattern: string): Promise<string[]> {
  const segments = pattern.split(path.sep);
  const firstGlob = segments.findIndex((s) => GLOB_CHARS.test(s));
  const root = segments.slice(0, firstGlob).join(path.sep) || path.sep;
  const rest = segments.slice(firstGlob).join('/');
  const re = new RegExp(
    '^' +
      rest
        .split('/')
        .map((seg) =>
          seg === '**'
            ? '(?:.*/)?'
            : `${seg
                .replace(/[.+^${}()|\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]')}/`,
        )
        .join('')
        .replace(/\/$/, '') +
      '$',
  );
  const out: string[] = [];
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (depth > 8 || out.length > 10_000) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path.join(dir, e.name), r, depth + 1);
      else if (e.isFile() && re.test(r)) out.push(path.join(dir, e.name));
    }
  };
  await walk(root, '', 0);
  return out.sort();
}

/** path:size:mtime of every file behind the table; changes whenever the data may have changed. */
export async function fingerprintFiles(t: FileTable): Promise<string> {
  const files = GLOB_CHARS.test(t.location) ? await expandGlob(t.location) : [t.location];
  const parts: string[] = [];
  for (const f of files) {
    try {
      const s = await stat(f);
      parts.push(`${f}:${s.size}:${s.mtimeMs}`);
    } catch {
      parts.push(`${f}:missing`);
    }
  }
  return parts.join('|');
}

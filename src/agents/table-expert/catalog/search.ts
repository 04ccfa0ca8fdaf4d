/**
 * Keyword search over table names, column names, row values and saved results. Every hit has a
 * stable id (ids.ts) and a score; results are ordered by score, then kind, then id, so the same
 * query over the same data always gives the same list. Rows are found with ILIKE scans over the
 * text columns, bounded by the engine's time limit and a per-table row cap.
 */
import type { JsonValue } from '../../../protocol/a2a/types.js';
import type { Scope, TableEngine } from '../engine/duckdb-engine.js';
import { quoteIdent } from '../sql/sql-text.js';
import { formatId } from './ids.js';
import { isTextType, type TableProfile } from './profile.js';
import type { SavedResults } from './saved-results.js';

export type HitKind = 'table' | 'column' | 'row' | 'result';

export interface SearchHit {
  id: string;
  kind: HitKind;
  title: string;
  /** one line: what matched */
  text: string;
  score: number;
  table?: string;
  column?: string;
}

const KIND_WEIGHT: Record<HitKind, number> = { table: 1.5, column: 1.2, row: 1, result: 1.1 };
const KIND_ORDER: Record<HitKind, number> = { table: 0, column: 1, row: 2, result: 3 };
const ROWS_PER_TABLE = 20;
const MAX_TEXT_COLUMNS = 12;

export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 2))].slice(0, 8);
}

/** 3 for the whole value, 2 for a whole word in it, 1 for a part of a word, 0 for nothing. */
function match(text: string, term: string): number {
  const t = text.toLowerCase();
  if (t === term) return 3;
  if (new RegExp(`(^|[^\\p{L}\\p{N}])${term}([^\\p{L}\\p{N}]|$)`, 'u').test(t)) return 2;
  if (
    t
      .replace(/_/g, ' ')
      .split(' ')
      .some((w) => w === term)
  )
    return 2;
  return t.includes(term) ? 1 : 0;
}

export async function search(engine: TableEngine, profiles: readonly TableProfile[], saved: SavedResults, query: string, opts: { limit: number; scope?: Scope; signal?: AbortSignal }): Promise<SearchHit[]> {
  const terms = searchTerms(query);
  if (terms.length === 0) return [];
  const hits: SearchHit[] = [];
  const score = (fields: string[]) => terms.reduce((s, term) => s + Math.max(0, ...fields.map((f) => match(f, term))), 0);

  for (const p of profiles) {
    const s = score([p.name, p.description ?? '', p.dataset]);
    if (s > 0) {
      hits.push({
        id: formatId({ kind: 'table', table: p.name }),
        kind: 'table',
        title: p.name,
        text: `table ${p.name}: ${p.rowCount} rows, ${p.columns.length} columns${p.description ? ` — ${p.description}` : ''}`,
        score: s * KIND_WEIGHT.table,
        table: p.name,
      });
    }
    for (const c of p.columns) {
      const s2 = score([c.name]);
      if (s2 > 0) {
        hits.push({
          id: formatId({ kind: 'column', table: p.name, column: c.name }),
          kind: 'column',
          title: `${p.name}.${c.name}`,
          text: `column ${p.name}.${c.name} (${c.type})`,
          score: s2 * KIND_WEIGHT.column,
          table: p.name,
          column: c.name,
        });
      }
    }
  }

  for (const p of profiles) {
    const textCols = p.columns.filter((c) => isTextType(c.type)).slice(0, MAX_TEXT_COLUMNS);
    if (textCols.length === 0) continue;
    const keyed = p.key?.length === 1;
    const idExpr = keyed ? `CAST(x.${quoteIdent(p.key![0]!)} AS VARCHAR)` : 'md5(CAST(to_json(x) AS VARCHAR))';
    const where = terms.map((_, i) => `(${textCols.map((c) => `x.${quoteIdent(c.name)} ILIKE '%' || $${i + 1} || '%'`).join(' OR ')})`).join(' OR ');
    const sql = `SELECT ${idExpr}, ${textCols.map((c) => `x.${quoteIdent(c.name)}`).join(', ')} FROM ${quoteIdent(p.name)} AS x WHERE ${where} LIMIT ${ROWS_PER_TABLE}`;
    let rows: JsonValue[][];
    try {
      rows = (await engine.internal(sql, { params: terms, maxRows: ROWS_PER_TABLE, ...(opts.signal ? { signal: opts.signal } : {}) })).rows;
    } catch {
      continue; // a table too large to scan in time is left out rather than failing the search
    }
    for (const r of rows) {
      const values = r.slice(1).map((v) => (v === null ? '' : String(v)));
      const s = score(values);
      if (s === 0) continue;
      const matched = textCols.map((c, i) => [c.name, values[i]!] as const).filter(([, v]) => terms.some((t) => match(v, t) > 0));
      const label = values[textCols.findIndex((c) => /^(name|title|label)$/i.test(c.name))] ?? matched[0]?.[1] ?? '';
      const id = keyed ? formatId({ kind: 'row', table: p.name, key: p.key![0]!, value: String(r[0]) }) : formatId({ kind: 'row', table: p.name, hash: String(r[0]) });
      hits.push({
        id,
        kind: 'row',
        title: `${p.name}: ${label}`.slice(0, 120),
        text: matched
          .map(([c, v]) => `${c}: ${v}`)
          .join('; ')
          .slice(0, 300),
        score: s * KIND_WEIGHT.row,
        table: p.name,
      });
    }
  }

  const visible = new Set(profiles.map((p) => p.usecase));
  for (const r of saved.list()) {
    if (!r.usecases.every((u) => visible.has(u))) continue;
    const s = score([r.question ?? '', r.sql]);
    if (s > 0)
      hits.push({
        id: formatId({ kind: 'result', hash: r.hash }),
        kind: 'result',
        title: r.question ?? r.sql.slice(0, 80),
        text: `saved result: ${r.sql.replace(/\s+/g, ' ').slice(0, 200)}`,
        score: s * KIND_WEIGHT.result,
      });
  }

  hits.sort((a, b) => b.score - a.score || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, opts.limit).map((h) => ({ ...h, score: Math.round(h.score * 100) / 100 }));
}

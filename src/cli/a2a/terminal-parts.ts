/**
 * Parts as a person reads them in a terminal: markdown rendered, SQL set off, a DataPart of rows
 * as an aligned table (the first rows, then how many more), a chart as one line saying what it
 * is and how to get it, other data as JSON up to a length; parts separated by a blank line.
 * `--raw` prints the parts as sent instead (render.ts partsText), `--json` the protocol objects.
 */
import type { Part } from '../../protocol/a2a/types.js';
import { partsText, partText } from './render.js';
import { alignedTable, dim, renderMarkdown, type TerminalStyle } from './terminal-markdown.js';

export interface TerminalPartsOptions extends TerminalStyle {
  /** rows of a table shown before "… n more rows" (default 20) */
  maxRows?: number;
  /** lines of other JSON data shown before the rest is cut (default 40) */
  maxJsonLines?: number;
  /** how to see everything, named in the "more" lines (default "--raw or --json") */
  fullHint?: string;
}

const VEGA_LITE = /^application\/vnd\.vegalite\.v\d+\+json$/;
const MAX_CELL = 48;

type Row = Record<string, unknown> | unknown[];
interface Rows {
  columns: string[];
  numeric: boolean[];
  rows: Row[];
  total: number;
}

/** `{columns, rows}` (the Table Expert's shape, rows as arrays or objects) or an array of flat objects. */
function rowsOf(data: unknown): Rows | undefined {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isRecord(data) && Array.isArray(data.columns) && Array.isArray(data.rows)) {
    const cols = data.columns.map((c) => (typeof c === 'string' ? { name: c } : isRecord(c) && typeof c.name === 'string' ? { name: c.name, type: typeof c.type === 'string' ? c.type : undefined } : undefined));
    if (cols.some((c) => c === undefined)) return undefined;
    const total = typeof data.rowCount === 'number' ? Math.max(data.rowCount, data.rows.length) : data.rows.length;
    const numericType = (t?: string) => t !== undefined && /INT|DOUBLE|FLOAT|DECIMAL|NUMERIC|REAL|HUGEINT/i.test(t);
    return { columns: cols.map((c) => c!.name), numeric: cols.map((c) => numericType(c!.type)), rows: data.rows as Row[], total };
  }
  if (Array.isArray(data) && data.length > 0 && data.every((r) => isRecord(r) && Object.values(r).every((v) => v === null || typeof v !== 'object'))) {
    const columns = [...new Set(data.flatMap((r) => Object.keys(r as object)))];
    return { columns, numeric: columns.map((c) => data.every((r) => typeof (r as Record<string, unknown>)[c] === 'number' || (r as Record<string, unknown>)[c] == null)), rows: data as Row[], total: data.length };
  }
  return undefined;
}

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const one = s.replace(/\s+/g, ' ');
  return one.length > MAX_CELL ? `${one.slice(0, MAX_CELL - 1)}…` : one;
}

function tableText(t: Rows, o: TerminalPartsOptions): string {
  const max = o.maxRows ?? 20;
  const shown = t.rows.slice(0, max).map((r) => t.columns.map((c, i) => cell(Array.isArray(r) ? r[i] : r[c])));
  const lines = alignedTable(o, t.columns, shown, t.numeric);
  const more = t.total - shown.length;
  lines.push(dim(o, more > 0 ? `… ${more} more row${more === 1 ? '' : 's'} (${t.total} in all; ${o.fullHint ?? '--raw or --json'} for the data)` : `${t.total} row${t.total === 1 ? '' : 's'}`));
  return lines.join('\n');
}

/** "bar chart of revenue by product_name, 5 points" from a Vega-Lite spec. */
function chartLine(spec: unknown, o: TerminalPartsOptions): string {
  const s = (spec ?? {}) as { mark?: unknown; encoding?: Record<string, { field?: string }>; data?: { values?: unknown[] } };
  const mark = typeof s.mark === 'string' ? s.mark : typeof (s.mark as { type?: unknown })?.type === 'string' ? (s.mark as { type: string }).type : 'chart';
  const enc = s.encoding ?? {};
  const measure = enc.y?.field ?? enc.theta?.field;
  const by = enc.x?.field ?? enc.color?.field;
  const kind = mark === 'arc' ? 'pie' : mark;
  const what = [measure, by && by !== measure ? `by ${by}` : undefined].filter(Boolean).join(' ');
  const points = Array.isArray(s.data?.values) ? `, ${s.data!.values!.length} points` : '';
  return `chart: ${kind} chart${what ? ` of ${what}` : ''}${points} (a Vega-Lite spec; ${o.fullHint ?? '--raw or --json'} prints it)`;
}

function jsonText(data: unknown, o: TerminalPartsOptions): string {
  const lines = JSON.stringify(data, null, 2).split('\n');
  const max = o.maxJsonLines ?? 40;
  if (lines.length <= max) return lines.join('\n');
  return [...lines.slice(0, max), dim(o, `… ${lines.length - max} more lines (${o.fullHint ?? '--raw or --json'} for all)`)].join('\n');
}

function partForTerminal(p: Part, o: TerminalPartsOptions): string {
  if (p.text !== undefined) {
    if (p.mediaType === 'text/markdown') return renderMarkdown(o, p.text);
    if (p.mediaType === 'application/sql')
      return `${dim(o, 'SQL')}\n${p.text
        .trim()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}`;
    return p.text;
  }
  if (p.data !== undefined) {
    if ((p.mediaType && VEGA_LITE.test(p.mediaType)) || /vega-lite/.test(String((p.data as { $schema?: unknown })?.$schema ?? ''))) return chartLine(p.data, o);
    const rows = rowsOf(p.data);
    return rows ? tableText(rows, o) : jsonText(p.data, o);
  }
  return partText(p);
}

/** Adjacent text parts of one media type are one text streamed in chunks; they are joined first. */
export function partsForTerminal(parts: readonly Part[], o: TerminalPartsOptions): string {
  const merged: Part[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (p.text !== undefined && last?.text !== undefined && last.mediaType === p.mediaType) merged[merged.length - 1] = { ...last, text: last.text + p.text };
    else merged.push(p);
  }
  return merged
    .map((p) => partForTerminal(p, o))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** The renderer a command uses: the parts as sent with `--raw`, else for this terminal. */
export function partsRendererFor(io: { isTTY?: boolean; env: NodeJS.ProcessEnv }, raw: boolean | undefined, fullHint?: string): (parts: Part[]) => string {
  if (raw) return partsText;
  const o: TerminalPartsOptions = { color: io.isTTY === true && !io.env.NO_COLOR, ...(fullHint ? { fullHint } : {}) };
  return (parts) => partsForTerminal(parts, o);
}

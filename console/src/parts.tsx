/**
 * Message and artifact parts, rendered: markdown text (`text/markdown`) as markdown, other text as
 * written; a Vega-Lite spec as a chart; other data as a table when it is a list of flat records (a
 * data row set), else as indented JSON; files by name.
 */
import type { Part } from './a2a-stream.js';
import { isVegaLite, VegaLiteChart } from './charts/vega-lite-chart.js';
import { Markdown } from './markdown.js';

type Flat = Record<string, string | number | boolean | null>;

function isScalar(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

/**
 * The rows when `data` is a data row set: a non-empty array of objects whose values are all
 * scalars, or a result set as the Table Expert answers (`{columns: [{name}], rows: [[…]]}`).
 */
export function flatRows(data: unknown): Flat[] | undefined {
  if (Array.isArray(data)) {
    const objects = data.length > 0 && data.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r) && Object.values(r).every(isScalar));
    return objects ? (data as Flat[]) : undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { columns, rows } = data as { columns?: unknown; rows?: unknown };
  if (!Array.isArray(columns) || !Array.isArray(rows) || rows.length === 0) return undefined;
  const names = columns.map((c) => (typeof c === 'object' && c !== null ? (c as { name?: unknown }).name : undefined));
  if (!names.every((n): n is string => typeof n === 'string')) return undefined;
  if (!rows.every((r) => Array.isArray(r) && r.length === names.length && r.every(isScalar))) return undefined;
  return (rows as Flat[keyof Flat][][]).map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]!])));
}

function DataTable({ rows, caption }: { rows: Flat[]; caption: string }) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <div class="table-wrap">
      <table class="data-part">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c} class={typeof r[c] === 'number' ? 'num' : undefined}>
                  {r[c] === undefined || r[c] === null ? '' : String(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Parts({ parts, label }: { parts: Part[] | undefined; label: string }) {
  return (
    <>
      {(parts ?? []).map((p, i) => {
        const key = `${label}-${i}`;
        if (p.text !== undefined && p.mediaType === 'text/markdown') return <Markdown key={key} text={p.text} />;
        if (p.text !== undefined)
          return (
            <pre key={key} class="part-text">
              {p.text}
            </pre>
          );
        if (p.data !== undefined && isVegaLite(p.mediaType)) return <VegaLiteChart key={key} spec={p.data} label={`${label}: chart`} />;
        if (p.data !== undefined) {
          const rows = flatRows(p.data);
          return rows ? (
            <DataTable key={key} rows={rows} caption={`${label}: ${rows.length} rows`} />
          ) : (
            <pre key={key} class="part-data">
              {JSON.stringify(p.data, null, 2)}
            </pre>
          );
        }
        return (
          <p key={key} class="muted">
            File {p.filename ?? p.url ?? ''} {p.mediaType ? `(${p.mediaType})` : ''}
          </p>
        );
      })}
    </>
  );
}

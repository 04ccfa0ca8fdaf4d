/**
 * A Vega-Lite v5 spec for results with a chartable shape: one measure over time (line), one
 * measure over categories (bar), shares of a total (arc), optionally split by a second dimension
 * (color). Anything else gets no chart rather than a misleading one.
 */
import type { JsonObject, JsonValue } from '../../../protocol/a2a/types.js';
import type { QueryResult } from '../engine/duckdb-engine.js';

export const VEGA_LITE_MEDIA_TYPE = 'application/vnd.vegalite.v5+json';
const MAX_POINTS = 500;
const MAX_BARS = 60;
const TIME_NAMES = new Set(['day', 'week', 'month', 'quarter', 'year', 'date']);

const numeric = (type: string) => /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/.test(type);

export function chartSpec(result: QueryResult, title?: string): JsonObject | undefined {
  if (result.rows.length < 2 || result.columns.length < 2) return undefined;
  const cols = result.columns.map((c, i) => ({ ...c, i, time: TIME_NAMES.has(c.name.toLowerCase()) || /^(DATE|TIMESTAMP)/.test(c.type) }));
  const measures = cols.filter((c) => numeric(c.type) && !c.time && !/(_id|^id)$/i.test(c.name));
  const share = measures.find((c) => c.name === 'share_pct');
  const measure = measures.filter((c) => c.name !== 'share_pct').at(-1) ?? share;
  if (!measure) return undefined;
  const dims = cols.filter((c) => c !== measure && c !== share && (!numeric(c.type) || c.time) && !/(_id|^id)$/i.test(c.name));
  if (dims.length === 0 || dims.length > 2) return undefined;
  const x = dims.find((d) => d.time) ?? dims[0]!;
  const color = dims.find((d) => d !== x);
  const values: JsonValue[] = result.rows.slice(0, MAX_POINTS).map((r) => Object.fromEntries(cols.map((c) => [c.name, r[c.i] ?? null])) as JsonObject);
  const base: JsonObject = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    ...(title ? { title } : {}),
    data: { values },
  };
  const yEnc: JsonObject = { field: measure.name, type: 'quantitative' };
  if (x.time) {
    const temporal = /^(DATE|TIMESTAMP)/.test(x.type) || ['month', 'week', 'day', 'date'].includes(x.name.toLowerCase());
    return {
      ...base,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: x.name, type: temporal ? 'temporal' : 'ordinal' },
        y: yEnc,
        ...(color ? { color: { field: color.name, type: 'nominal' } } : {}),
      },
    };
  }
  if (result.rows.length > MAX_BARS) return undefined;
  if (share && !color && result.rows.length <= 12) {
    return {
      ...base,
      mark: { type: 'arc' },
      encoding: { theta: { field: measure.name, type: 'quantitative' }, color: { field: x.name, type: 'nominal' } },
    };
  }
  return {
    ...base,
    mark: { type: 'bar' },
    encoding: {
      x: { field: x.name, type: 'nominal', sort: '-y' },
      y: yEnc,
      ...(color ? { color: { field: color.name, type: 'nominal' } } : {}),
    },
  };
}

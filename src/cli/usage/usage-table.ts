/**
 * The table `agentport usage` prints: one row per group, its dimensions, then calls, errors, error
 * rate, latency p50/p95, tokens, cost, and a sparkline of its calls per time bucket. Numbers are
 * right-aligned, text left; colour (bold header, red error rate, cyan sparkline) only when asked,
 * i.e. on a terminal without NO_COLOR.
 */
import type { UsageAnswer, UsageGroupView } from '../../bindings/management/usage-export.js';
import type { UsageDimension, UsageTimeBucket } from '../../store/usage-record.js';
import { sparkline } from './sparkline.js';

export interface UsageSeries {
  bucket: UsageTimeBucket;
  /** epoch ms of each bucket's start, in order */
  starts: readonly number[];
  /** rowKey → calls per bucket */
  byKey: ReadonlyMap<string, readonly number[]>;
}

const ESC = '\x1b[';
const paint = (on: boolean, code: string, text: string) => (on ? `${ESC}${code}m${text}${ESC}0m` : text);

/** The identity of a group across queries with and without a bucket. */
export function rowKey(groupBy: readonly UsageDimension[], key: UsageGroupView['key']): string {
  return JSON.stringify(groupBy.map((d) => key[d] ?? null));
}

/** Calls per bucket for each group of a bucketed answer. */
export function seriesOf(groupBy: readonly UsageDimension[], groups: readonly UsageGroupView[], bucket: UsageTimeBucket, starts: readonly number[]): UsageSeries {
  const index = new Map(starts.map((t, i) => [t, i]));
  const byKey = new Map<string, number[]>();
  for (const g of groups) {
    const i = g.bucketStart === undefined ? undefined : index.get(Date.parse(g.bucketStart));
    if (i === undefined) continue;
    const k = rowKey(groupBy, g.key);
    const row = byKey.get(k) ?? new Array<number>(starts.length).fill(0);
    row[i]! += g.calls;
    byKey.set(k, row);
  }
  return { bucket, starts, byKey };
}

/**
 * A value a client chose (a tool name, a subject) shown without its control characters: an escape
 * sequence in a tool name must not repaint the operator's terminal.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
export const printable = (text: string) => text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}`;
const ms = (v: number | undefined) => (v === undefined ? '-' : String(Math.round(v)));
const cost = (v: number) => String(Number(v.toFixed(4)));

export function usageTable(answer: UsageAnswer, series: UsageSeries | undefined, color: boolean): string {
  const by = answer.groupBy;
  const title = `usage ${utc(answer.from)} → ${utc(answer.to)} UTC${by.length ? `, by ${by.join(', ')}` : ''}${answer.subject === undefined ? '' : ` (subject ${printable(answer.subject)})`}\n`;
  if (answer.groups.length === 0) return `${title}no usage in this window\n`;

  const dimHeads = by.length ? by.map((d) => d.toUpperCase()) : ['ALL'];
  const heads = [...dimHeads, 'CALLS', 'ERRORS', 'ERR%', 'P50 MS', 'P95 MS', 'TOKENS', 'COST', ...(series ? [`CALLS PER ${series.bucket.toUpperCase()}`] : [])];
  const numeric = heads.map((_, i) => i >= dimHeads.length && i < dimHeads.length + 7);
  const rows = answer.groups.map((g) => {
    const dims = by.length ? by.map((d) => printable(g.key[d] ?? '-')) : ['all'];
    const spark = series ? [sparkline(series.byKey.get(rowKey(by, g.key)) ?? new Array<number>(series.starts.length).fill(0))] : [];
    return [...dims, String(g.calls), String(g.errors), `${(g.errorRate * 100).toFixed(1)}%`, ms(g.latencyMs?.p50), ms(g.latencyMs?.p95), String(g.tokens), cost(g.cost), ...spark];
  });
  const widths = heads.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const last = heads.length - 1;
  const line = (cells: string[], style: (text: string, col: number) => string) =>
    `${cells
      .map((c, i) => {
        if (i === last) return style(c, i);
        const pad = ' '.repeat(widths[i]! - [...c].length);
        return style(numeric[i] ? pad + c : c + pad, i);
      })
      .join('  ')}\n`;
  const errCol = dimHeads.length + 2;
  const sparkCol = series ? last : -1;
  let out = title + line(heads, (t) => paint(color, '1', t));
  answer.groups.forEach((g, r) => {
    out += line(rows[r]!, (t, i) => (i === errCol && g.errors > 0 ? paint(color, '31', t) : i === sparkCol ? paint(color, '36', t) : t));
  });
  if (answer.quotas?.length) {
    const q = answer.quotas.map((x) => [printable(x.quotaId), printable(x.kind), String(x.remaining), String(x.limit), x.resetAt ? `${utc(x.resetAt)} UTC` : '-']);
    const qh = ['QUOTA', 'KIND', 'REMAINING', 'LIMIT', 'RESETS'];
    const qw = qh.map((h, i) => Math.max(h.length, ...q.map((r) => r[i]!.length)));
    const qline = (cells: string[]) => `${cells.map((c, i) => (i === cells.length - 1 ? c : i === 2 || i === 3 ? c.padStart(qw[i]!) : c.padEnd(qw[i]!))).join('  ')}\n`;
    out += `\n${paint(color, '1', qline(qh).trimEnd())}\n${q.map(qline).join('')}`;
  }
  return out;
}

/**
 * The Overview's hourly charts as Vega-Lite specs (drawn by the console's Vega chunk, like an
 * agent's charts). Always the whole last 24 hours, one band per hour with the hours without calls
 * at zero: one hour of data is then one narrow bar at its hour, not a block across half the chart;
 * the axis names hours (distinct at each end) and nothing is drawn over the bars.
 */
import type { UsageGroup } from '../usage-types.js';

const HOUR = 3_600_000;

export interface HourlySeries {
  name: string;
  value: (g: UsageGroup) => number;
  color: string;
}

/** The 24 hour starts ending with the hour of `now` (UTC), oldest first, as `HH:00` labels and ISO keys. */
export function lastDayHours(now: number): Array<{ iso: string; label: string }> {
  const current = Math.floor(now / HOUR) * HOUR;
  return Array.from({ length: 24 }, (_, i) => {
    const d = new Date(current - (23 - i) * HOUR);
    return { iso: d.toISOString(), label: `${String(d.getUTCHours()).padStart(2, '0')}:00` };
  });
}

/** Every third hour is labelled, and always the newest: enough to read, never crowded at 390 px. */
const labelled = (hours: Array<{ label: string }>) => hours.filter((_, i) => (hours.length - 1 - i) % 3 === 0).map((h) => h.label);

export function hourlySpec(groups: UsageGroup[], series: HourlySeries[], unit: string, now: number): object {
  const hours = lastDayHours(now);
  const byHour = new Map(groups.map((g) => [g.bucketStart ? new Date(g.bucketStart).toISOString() : '', g]));
  // Later series are drawn over earlier ones (errors over calls: a part of them), not stacked.
  const values = hours.flatMap((h) => series.map((s, order) => ({ hour: h.label, series: s.name, order, value: byHour.has(h.iso) ? s.value(byHour.get(h.iso)!) : 0 })));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 'container',
    height: 150,
    autosize: { type: 'fit-x', contains: 'padding' },
    data: { values },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      x: {
        field: 'hour',
        type: 'ordinal',
        sort: hours.map((h) => h.label),
        scale: { domain: hours.map((h) => h.label), paddingInner: 0.15 },
        axis: { title: 'hour (UTC)', labelAngle: 0, values: labelled(hours) },
      },
      y: { field: 'value', type: 'quantitative', stack: null, title: unit, axis: { tickMinStep: 1, format: '~s' } },
      order: { field: 'order' },
      color: {
        field: 'series',
        type: 'nominal',
        scale: { domain: series.map((s) => s.name), range: series.map((s) => s.color) },
        legend: series.length > 1 ? { orient: 'top', title: null } : null,
      },
    },
  };
}

/**
 * Reads a Prometheus text exposition with real parsers, so tests check what Prometheus would
 * ingest, not what a regex thinks it sees: parse-prometheus-text-format reads the whole text
 * (counters, gauges, every family's syntax); histograms with labels are read by prom2javascript,
 * because the first one merges the series of a labelled histogram into one.
 */
import { Readable } from 'node:stream';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { getMetricsFromStream, type PromHistogramData } from 'prom2javascript';

interface Sample {
  labels?: Record<string, string>;
  value?: string;
}

interface Family {
  name: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  histograms: Map<string, PromHistogramData[]>;
}

/** The text of the families named, as exposed (from each `# HELP name` to the next family). */
function familyBlocks(text: string, names: string[]): string {
  const blocks = text.split(/\n(?=# HELP )/);
  return blocks.filter((b) => names.some((n) => b.startsWith(`# HELP ${n} `))).join('\n');
}

export async function parseExposition(text: string): Promise<Exposition> {
  const parsed = parsePrometheusTextFormat(text) as Family[];
  const families = new Map(parsed.map((f) => [f.name, f]));
  const histogramNames = parsed.filter((f) => f.type === 'HISTOGRAM').map((f) => f.name);
  const read = await getMetricsFromStream(Readable.from([familyBlocks(text, histogramNames)]));
  const histograms = new Map(Object.entries(read).map(([name, m]) => [name, m.data as PromHistogramData[]]));
  return { families, histograms };
}

const matches = (labels: Record<string, string> | undefined, match: Record<string, string>) => Object.entries(match).every(([k, v]) => (labels?.[k] ?? '') === v);

/** Sum of a counter's or gauge's values over the series whose labels include `match`. */
export function sampleSum(e: Exposition, name: string, match: Record<string, string> = {}): number {
  return (e.families.get(name)?.metrics ?? []).filter((m) => matches(m.labels, match)).reduce((n, m) => n + Number(m.value), 0);
}

/** Sum of a histogram's observation counts over the series whose labels include `match`. */
export function countOf(e: Exposition, name: string, match: Record<string, string> = {}): number {
  return (e.histograms.get(name) ?? []).filter((h) => matches(h.labels, match)).reduce((n, h) => n + h.count, 0);
}

/** The series of a histogram (labels and counts). */
export function seriesOf(e: Exposition, name: string): PromHistogramData[] {
  return e.histograms.get(name) ?? [];
}

/** Every label value of every sample, histograms included. */
export function allLabelValues(e: Exposition): string[] {
  const plain = [...e.families.values()].flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
  const hist = [...e.histograms.values()].flatMap((hs) => hs.flatMap((h) => Object.values(h.labels)));
  return [...plain, ...hist];
}

/** Every metric name a query may use: families, and a histogram's _bucket/_sum/_count series. */
export function seriesNames(e: Exposition): Set<string> {
  const names = new Set<string>();
  for (const f of e.families.values()) {
    names.add(f.name);
    if (f.type === 'HISTOGRAM' || f.type === 'SUMMARY') for (const s of ['_bucket', '_sum', '_count']) names.add(f.name + s);
  }
  return names;
}

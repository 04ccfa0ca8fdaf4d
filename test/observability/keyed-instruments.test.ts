/**
 * The hot-path instruments (src/observability/metrics/keyed-instruments.ts) against prom-client's
 * own: the same observations render the same exposition, series for series, through the registry.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { KeyedCounter, KeyedHistogram } from '../../src/observability/metrics/keyed-instruments.js';
import { countOf, parseExposition, sampleSum } from '../support/prometheus.js';

/** The exposition's lines, sorted: series order within a family is not part of the format. */
const lines = async (r: Registry) => (await r.metrics()).split('\n').filter(Boolean).sort();

describe('KeyedHistogram and KeyedCounter', () => {
  it('render what prom-client renders for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const buckets = [0.01, 0.1, 1, 10];
    const h = new KeyedHistogram('d_seconds', 'durations', ['face', 'outcome'], buckets, ours);
    const ph = new Histogram({ name: 'd_seconds', help: 'durations', labelNames: ['face', 'outcome'], buckets, registers: [theirs] });
    const c = new KeyedCounter('calls_total', 'calls', ['face', 'status'], ours);
    const pc = new Counter({ name: 'calls_total', help: 'calls', labelNames: ['face', 'status'], registers: [theirs] });
    const plain = new KeyedHistogram('plain_seconds', 'no labels', [], buckets, ours);
    new Histogram({ name: 'plain_seconds', help: 'no labels', buckets, registers: [theirs] });
    const samples: Array<[string, string, number]> = [
      ['a2a-jsonrpc/1.0', 'ok', 0.004],
      ['a2a-jsonrpc/1.0', 'ok', 0.01],
      ['a2a-jsonrpc/1.0', 'ok', 0.5],
      ['a2a-rest/1.0', 'TASK_NOT_FOUND', 12],
      ['mcp/2025-11-25', 'a "quoted"\\value\nwith a newline', 0.2],
    ];
    for (const [face, outcome, v] of samples) {
      h.observe([face, outcome], v);
      ph.observe({ face, outcome }, v);
      c.inc([face, '200']);
      pc.inc({ face, status: '200' });
    }
    c.inc(['a2a-rest/1.0', '404'], 3);
    pc.inc({ face: 'a2a-rest/1.0', status: '404' }, 3);
    expect(await lines(ours)).toEqual(await lines(theirs));

    plain.observe([], 0.05);
    const e = await parseExposition(await ours.metrics());
    expect(countOf(e, 'd_seconds', { face: 'a2a-jsonrpc/1.0', outcome: 'ok' })).toBe(3);
    expect(countOf(e, 'plain_seconds')).toBe(1);
    expect(sampleSum(e, 'calls_total', { face: 'a2a-rest/1.0' })).toBe(4);
  });

  it('reset empties every series; a histogram without labels still exports its zeros', async () => {
    const r = new Registry();
    const h = new KeyedHistogram('plain_seconds', 'no labels', [], [1], r);
    const c = new KeyedCounter('calls_total', 'calls', ['face'], r);
    h.observe([], 2);
    c.inc(['x']);
    r.resetMetrics();
    const e = await parseExposition(await r.metrics());
    expect(countOf(e, 'plain_seconds')).toBe(0);
    expect(e.histograms.get('plain_seconds')).toHaveLength(1);
    expect(sampleSum(e, 'calls_total')).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { UsageRecorder, type CallEnd } from '../../../src/core/usage/usage-recorder.js';
import type { UsageDraft } from '../../../src/core/usage/usage-draft.js';
import type { UsageAmend, UsageRecord } from '../../../src/store/usage-record.js';
import type { UsageStore } from '../../../src/store/usage-store.js';

/** A store that keeps what it is asked to write (the recorder's batching is under test, not SQL). */
function keepingStore() {
  const written: { records: readonly UsageRecord[]; amends: readonly UsageAmend[] }[] = [];
  const store = { write: async (records: readonly UsageRecord[], amends: readonly UsageAmend[]) => void written.push({ records, amends }) } as unknown as UsageStore;
  return { store, written };
}

const log = { warn() {}, error() {} };
const config = (enabled: boolean) => ({ enabled, retentionDays: 90, queueLimit: 100, flushIntervalMs: 1000 });

describe('call observers on the usage recorder', () => {
  it('with records off and no observer, no draft is opened', () => {
    const { store } = keepingStore();
    const r = new UsageRecorder({ store, replica: 'r1', config: config(false), log });
    expect(r.tracking).toBe(false);
    expect(r.open('a2a')).toBeUndefined();
  });

  it('with records off, an observer still sees every call end, and nothing is written', async () => {
    const { store, written } = keepingStore();
    const r = new UsageRecorder({ store, replica: 'r1', config: config(false), log });
    const seen: [UsageDraft, CallEnd][] = [];
    r.observe({ callEnded: (d, end) => seen.push([d, end]) });
    expect(r.tracking).toBe(true);
    const d = r.open('a2a-jsonrpc/1.0');
    expect(d).toBeDefined();
    d!.operation = 'GetTask';
    r.finish(d!, { status: 404, latencyMs: 3 });
    await r.flush();
    expect(seen.map(([x, e]) => [x.face, x.operation, e.status])).toEqual([['a2a-jsonrpc/1.0', 'GetTask', 404]]);
    expect(written).toEqual([]);
  });

  it('with records on, observers are told and the record is written; skipped calls reach neither', async () => {
    const { store, written } = keepingStore();
    const r = new UsageRecorder({ store, replica: 'r1', config: config(true), log });
    const seen: string[] = [];
    r.observe({ callEnded: (d) => seen.push(d.operation ?? '?') });
    const d = r.open('cards')!;
    d.operation = 'GetAgentCard';
    r.finish(d, { status: 200, latencyMs: 1 });
    const probe = r.open('routes')!;
    probe.skip = true;
    r.finish(probe, { status: 200, latencyMs: 1 });
    await r.flush();
    expect(seen).toEqual(['GetAgentCard']);
    expect(written.flatMap((w) => w.records.map((x) => x.operation))).toEqual(['GetAgentCard']);
  });
});

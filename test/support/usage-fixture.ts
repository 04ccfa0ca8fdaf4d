/**
 * A known set of usage records in the first week of January 2026, for the analytics API and CLI
 * tests: three subjects, two agents, tools with awkward names (a comma and quotes, a formula), a
 * record without a tool, errors, latencies, tokens and cost with round numbers.
 */
import { MemoryUsageStore, usageRecord } from './memory-usage-store.js';

export const JAN_1 = Date.UTC(2026, 0, 1);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The window every fixture query uses: [Jan 1, Jan 8). */
export const WEEK = { since: '2026-01-01T00:00:00Z', until: '2026-01-08T00:00:00Z' };

/** Calls of alice on echo per day, Jan 1 … Jan 7 (the sparkline of her echo row). */
export const ALICE_ECHO_PER_DAY = [1, 2, 3, 4, 5, 6, 8];

export function usageFixture(): MemoryUsageStore {
  const store = new MemoryUsageStore();
  const records = [];
  ALICE_ECHO_PER_DAY.forEach((n, day) => {
    for (let i = 0; i < n; i++) {
      records.push(usageRecord({ time: JAN_1 + day * DAY + (i + 1) * HOUR, agent: 'echo', skill: 'echo', subject: 'alice', keyId: 'k-alice', latencyMs: 10 * (i + 1) }));
    }
  });
  // bob: 4 calls on table-expert, 1 of them an error; tokens and cost from an LLM path.
  for (let i = 0; i < 4; i++) {
    records.push(
      usageRecord({
        time: JAN_1 + 2 * DAY + i * HOUR,
        kind: 'task',
        agent: 'table-expert',
        skill: 'ask',
        tool: i === 0 ? 'query, "fast"' : 'search',
        subject: 'bob',
        outcome: i === 3 ? 'TASK_STATE_FAILED' : 'TASK_STATE_COMPLETED',
        error: i === 3,
        latencyMs: 100 * (i + 1),
        durationMs: 1000 * (i + 1),
        promptTokens: 100,
        completionTokens: 50,
        cachedTokens: 10 * i,
        cost: 0.5,
        bytesIn: 200,
        bytesOut: 1000,
        face: 'mcp/2025-11-25',
        operation: 'tools/call',
      }),
    );
  }
  // mallory: a tool name a spreadsheet would run as a formula; no agent.
  records.push(usageRecord({ time: JAN_1 + 5 * DAY, tool: '=HYPERLINK("x")', subject: 'mallory', face: 'mcp/2025-11-25', operation: 'tools/call', outcome: 'TASK_NOT_FOUND', error: true }));
  // Outside the window: never counted.
  records.push(usageRecord({ time: JAN_1 - HOUR, agent: 'echo', subject: 'alice' }));
  records.push(usageRecord({ time: JAN_1 + 7 * DAY, agent: 'echo', subject: 'alice' }));
  void store.write(records);
  return store;
}

/**
 * Helpers for the Table Expert suites: a server hosting the agent, one-call skill requests over
 * JSON-RPC, and the parts of an answer pulled apart (markdown, SQL, rows, chart).
 */
import { expect } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';

export type Row = Array<string | number | boolean | null>;

/** A server with the Table Expert at /a2a/table-expert (first, so primary) and any other agents. */
export async function startTableExpert(options: Record<string, unknown> = {}, others: Array<Record<string, unknown>> = []): Promise<TestServer> {
  return startTestServer({ agents: [{ id: 'table-expert', builtin: 'table-expert', options }, ...others] });
}

export interface Reply {
  state: string;
  task: any;
  /** markdown of the answer, or of the status message */
  text: string;
  sql?: string;
  data?: any;
  chart?: any;
  /** the DataPart of the status message (errors, clarifications) */
  statusData?: any;
}

export function readTask(task: any): Reply {
  const parts: any[] = task.artifacts?.[0]?.parts ?? [];
  const statusParts: any[] = task.status?.message?.parts ?? [];
  return {
    state: task.status.state,
    task,
    text: (parts.find((p) => p.mediaType === 'text/markdown') ?? statusParts.find((p) => typeof p.text === 'string'))?.text ?? '',
    sql: parts.find((p) => p.mediaType === 'application/sql')?.text,
    data: parts.find((p) => p.mediaType === 'application/json')?.data,
    chart: parts.find((p) => p.mediaType === 'application/vnd.vegalite.v5+json')?.data,
    statusData: statusParts.find((p) => p.data !== undefined)?.data,
  };
}

/** Sends one message (text or data part) to the agent and returns its task, read. */
export async function send(s: TestServer, content: string | Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Reply> {
  const message = typeof content === 'string' ? userMessage(content, extra) : { ...userMessage('', extra), parts: [{ data: content }] };
  const r = await rpc(`${s.http}/a2a/table-expert`, 'SendMessage', { message });
  if (!r.body?.result?.task) throw new Error(`no task in reply: ${JSON.stringify(r.body).slice(0, 500)}`);
  return readTask(r.body.result.task);
}

/** Rows equal, numbers within half a cent (decimal sums arrive as doubles). */
export function expectRows(actual: unknown[][], expected: Row[], label = ''): void {
  expect(actual.length, `${label}: row count`).toBe(expected.length);
  expected.forEach((row, i) => {
    const got = actual[i]!;
    expect(got.length, `${label}: width of row ${i}`).toBe(row.length);
    row.forEach((v, j) => {
      if (typeof v === 'number' && !Number.isInteger(v)) expect(Math.abs((got[j] as number) - v), `${label}: row ${i} col ${j} (${String(got[j])} vs ${v})`).toBeLessThan(0.005);
      else if (typeof v === 'number') expect(Number(got[j]), `${label}: row ${i} col ${j}`).toBeCloseTo(v, 6);
      else expect(got[j], `${label}: row ${i} col ${j}`).toEqual(v);
    });
  });
}

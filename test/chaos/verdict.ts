/**
 * What the chaos test asserts, read from the store itself (the private PostgreSQL) and the agent
 * log, not from the answers the clients got:
 *   lost        an acknowledged request whose task is not stored (or another task is);
 *   duplicated  two tasks for one message, or a completed multi-step task with a chunk twice;
 *   stuck       a task still owed progress (SUBMITTED, WORKING, AUTH_REQUIRED) after the settle time;
 *   blindRetry  an error answer (503 "retry") from the replica whose executor had already started
 *               the stored task for that very request (issue 19 C1).
 */
import pg from 'pg';
import { agentLogFor, type AgentLogLine } from '../support/cluster.js';
import type { Sent } from './load.js';

const RUNNING = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED'];

export interface StoredRow {
  id: string;
  context_id: string;
  state: string;
  lease_owner: string | null;
  task: string;
}

export async function readTasks(url: string, schema: string): Promise<StoredRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<StoredRow>(`select id, context_id, state, lease_owner, task from "${schema}".tasks where context_id like 'c-chaos-%'`);
    return rows;
  } finally {
    await client.end();
  }
}

/** How many stored tasks are owed progress, optionally only those leased to `replica`. */
export async function countRunning(url: string, schema: string, replica?: string): Promise<number> {
  const rows = await readTasks(url, schema);
  return rows.filter((r) => RUNNING.includes(r.state) && (replica === undefined || r.lease_owner === replica)).length;
}

export interface Verdict {
  acknowledged: number;
  stored: number;
  lost: string[];
  duplicated: string[];
  stuck: string[];
  blindRetry: string[];
  states: Record<string, number>;
}

export function judge(sent: Sent[], rows: StoredRow[], agentLogFile: string): Verdict {
  const byContext = new Map<string, StoredRow[]>();
  for (const r of rows) byContext.set(r.context_id, [...(byContext.get(r.context_id) ?? []), r]);
  const v: Verdict = { acknowledged: 0, stored: rows.length, lost: [], duplicated: [], stuck: [], blindRetry: [], states: {} };
  for (const r of rows) v.states[r.state] = (v.states[r.state] ?? 0) + 1;
  for (const s of sent) {
    const tasks = byContext.get(s.contextId) ?? [];
    if (tasks.length > 1) v.duplicated.push(`${s.messageId}: ${tasks.length} tasks (${tasks.map((t) => t.id).join(', ')})`);
    if (s.ackedTaskId) {
      v.acknowledged++;
      if (!tasks.some((t) => t.id === s.ackedTaskId)) v.lost.push(`${s.messageId}: acknowledged task ${s.ackedTaskId} not stored`);
    }
    const task = tasks[0];
    if (!task) continue;
    if (RUNNING.includes(task.state)) v.stuck.push(`${task.id} (${s.text}) ${task.state}, lease ${task.lease_owner}`);
    const slow = /^slow (\d+)$/.exec(s.text);
    if (slow && task.state === 'TASK_STATE_COMPLETED') {
      const parsed = JSON.parse(task.task) as { artifacts?: Array<{ parts: Array<{ text: string }> }> };
      const chunks = (parsed.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text));
      const want = Array.from({ length: Number(slow[1]) }, (_, i) => `chunk ${i + 1}`);
      if (JSON.stringify(chunks) !== JSON.stringify(want)) v.duplicated.push(`${task.id}: chunks ${JSON.stringify(chunks)}`);
    }
    const firstRun = agentLogFor(agentLogFile, task.id).find((l) => l.event === 'start');
    for (const a of s.attempts) {
      if (a.status < 400 || !firstRun) continue;
      if (startedBy(firstRun, a.replica, a.sentAt, a.at)) {
        v.blindRetry.push(`${s.messageId}: HTTP ${a.status} from ${a.replica} ${a.at - firstRun.at} ms after its executor started task ${task.id}: ${a.error ?? ''}`);
      }
    }
  }
  return v;
}

/** The task's first executor ran on the replica that answered, while that request was in flight. */
function startedBy(run: AgentLogLine, replica: string, sentAt: number, answeredAt: number): boolean {
  return run.replica === replica && run.at >= sentAt && run.at <= answeredAt;
}

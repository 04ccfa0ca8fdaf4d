/**
 * The chaos test's clients: blocking SendMessage calls spread over the replicas, each message in a
 * context of its own (so the store tells how many tasks it made), retried like a client obeying
 * `Retry-After` would: same messageId, another replica. Every answer is recorded with its time.
 */
import type { Replica } from '../support/cluster.js';
import { sleep } from '../support/private-services.js';

export interface Attempt {
  replica: string;
  /** epoch ms when the request was sent */
  sentAt: number;
  /** epoch ms when the answer (or the failure) arrived */
  at: number;
  /** HTTP status; 0: no answer (connection reset by a killed replica, client timeout) */
  status: number;
  taskId?: string;
  state?: string;
  error?: string;
}

export interface Sent {
  messageId: string;
  contextId: string;
  agent: string;
  text: string;
  attempts: Attempt[];
  /** the task id of the first answer that carried one (the request was acknowledged) */
  ackedTaskId?: string;
}

export interface LoadOptions {
  replicas: Replica[];
  clients: number;
  /** how long a client waits for one answer */
  answerTimeoutMs: number;
  /** attempts per message before the client gives up on it */
  maxAttempts: number;
}

/** The mix: quick echoes, short multi-step tasks of a plain and of a resumable agent. */
function pick(i: number): { agent: string; text: string } {
  const k = i % 10;
  if (k < 6) return { agent: 'work', text: `echo ${i}` };
  if (k < 8) return { agent: 'work', text: 'slow 5' };
  return { agent: 'resumable', text: 'slow 8' };
}

export class Load {
  readonly sent: Sent[] = [];
  private stopped = false;
  private running: Promise<void>[] = [];
  private counter = 0;

  constructor(private readonly o: LoadOptions) {}

  start(): void {
    this.running = Array.from({ length: this.o.clients }, (_, c) => this.client(c));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  get acknowledged(): number {
    return this.sent.filter((s) => s.ackedTaskId).length;
  }

  private async client(c: number): Promise<void> {
    while (!this.stopped) {
      const i = this.counter++;
      const { agent, text } = pick(i);
      const id = `chaos-${process.pid}-${i}`;
      const s: Sent = { messageId: `m-${id}`, contextId: `c-${id}`, agent, text, attempts: [] };
      this.sent.push(s);
      for (let a = 0; a < this.o.maxAttempts; a++) {
        const r = this.o.replicas[(c + i + a) % this.o.replicas.length]!;
        const attempt = await this.send(r, s);
        s.attempts.push(attempt);
        if (attempt.taskId) {
          s.ackedTaskId ??= attempt.taskId;
          break;
        }
        if (this.stopped && a > 0) break;
        // Retry-After: 1 (and the same pause after no answer at all)
        await sleep(attempt.status === 503 ? 1_000 : 300);
      }
    }
  }

  private async send(r: Replica, s: Sent): Promise<Attempt> {
    const message = { messageId: s.messageId, contextId: s.contextId, role: 'ROLE_USER', parts: [{ text: s.text }] };
    const sentAt = Date.now();
    try {
      const res = await fetch(r.url(s.agent), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
        signal: AbortSignal.timeout(this.o.answerTimeoutMs),
      });
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const task = body?.result?.task;
      return {
        replica: r.id,
        sentAt,
        at: Date.now(),
        status: res.status,
        ...(task?.id ? { taskId: task.id as string, state: task.status?.state as string } : { error: text.slice(0, 200) }),
      };
    } catch (err) {
      return { replica: r.id, sentAt, at: Date.now(), status: 0, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

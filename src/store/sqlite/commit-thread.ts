/**
 * The event loop's side of the commit thread (commit-worker.ts, ADR 0062): hands it prepared
 * batches and task counts, in order, and settles each from its answer.
 *
 * An answer's `settle` runs synchronously in the message's handler, in the order the thread
 * answered: a store can keep a figure exact across answers (knownTaskCount) with no await between.
 */
import { Worker } from 'node:worker_threads';
import { workerModuleUrl } from '../../config/worker-module.js';
import { ConcurrentUpdateError } from '../store.js';
import type { COMMIT_STATEMENTS } from './commit-batch.js';

export interface CommitThreadData {
  file: string;
  synchronous: 'normal' | 'full';
  busyTimeoutMs: number;
  /** whether the checkpointer thread runs (the writer then neither checkpoints nor truncates) */
  checkpointThread: boolean;
  sql: { [K in (typeof COMMIT_STATEMENTS)[number] | 'countTasks']: string };
}

export type CommitThreadRequest = { id: number; plan: unknown[] } | { id: number; agentId: string; owner: string } | { close: true };

export type CommitThreadReply = { id: number; n?: number } | { id: number; conflict: string } | { id: number; error: { message: string; code: string | undefined } };

interface Waiting {
  settle(reply: CommitThreadReply): void;
  reject(err: unknown): void;
}

export class CommitThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  /** set once the thread is closing or gone: later requests fail with it */
  #ended: Error | undefined;
  readonly #exited: Promise<void>;
  /** resolves when nothing is waiting for an answer (close drains through it) */
  #drained: (() => void) | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.#exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: CommitThreadReply) => {
      const w = this.#waiting.get(reply.id);
      if (!w) return;
      this.#waiting.delete(reply.id);
      this.#idleCheck();
      w.settle(reply);
    });
    worker.on('error', (err) => this.#fail(new Error(`sqlite commit thread failed: ${err.message}`, { cause: err })));
    worker.on('exit', () => this.#fail(new Error('sqlite commit thread ended')));
    worker.unref();
  }

  /** Undefined when no worker module is available; the store commits on its own connection then. */
  static start(data: CommitThreadData): CommitThread | undefined {
    const url = workerModuleUrl('./commit-worker.js', import.meta.url);
    if (!url) return undefined;
    return new CommitThread(new Worker(url, { workerData: data }));
  }

  /**
   * Runs `plan` (encodeBatch) as one transaction on the thread. `onCommitted` runs synchronously when the
   * answer arrives, before the promise resolves; a refusal rejects with the thread's error (a
   * ConcurrentUpdateError for a version or unique conflict, else an Error with SQLite's code).
   */
  commit(plan: unknown[], onCommitted: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#send(
        { id: this.#takeId(), plan },
        {
          reject,
          settle: (reply) => {
            const err = replyError(reply);
            if (err) return reject(err);
            onCommitted();
            resolve();
          },
        },
      );
    });
  }

  /** The number of `owner`'s tasks on `agentId` after every batch sent before; `onCounted` runs synchronously with the answer. */
  countTasks(agentId: string, owner: string, onCounted: (n: number) => number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#send(
        { id: this.#takeId(), agentId, owner },
        {
          reject,
          settle: (reply) => {
            const err = replyError(reply);
            if (err) return reject(err);
            resolve(onCounted((reply as { n: number }).n));
          },
        },
      );
    });
  }

  /** Waits for every answer still due, then ends the thread (its connection closes). */
  async close(): Promise<void> {
    if (!this.#ended) {
      this.#ended = new Error('sqlite store is closed');
      if (this.#waiting.size > 0) {
        this.#worker.ref();
        await new Promise<void>((resolve) => (this.#drained = resolve));
      }
      this.#worker.ref();
      this.#worker.postMessage({ close: true } satisfies CommitThreadRequest);
    }
    await this.#exited;
  }

  #send(msg: CommitThreadRequest & { id: number }, w: Waiting): void {
    if (this.#ended) {
      w.reject(this.#ended);
      return;
    }
    // Referenced while an answer is due, so a process waiting only on a commit does not exit under it.
    if (this.#waiting.size === 0) this.#worker.ref();
    this.#waiting.set(msg.id, w);
    this.#worker.postMessage(msg);
  }

  #takeId(): number {
    const id = this.#nextId;
    this.#nextId = id + 1;
    return id;
  }

  #idleCheck(): void {
    if (this.#waiting.size > 0) return;
    this.#worker.unref();
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
  }

  /** The thread is gone: everything still waiting fails with `err`, and so does every later request. */
  #fail(err: Error): void {
    this.#ended ??= err;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    this.#idleCheck();
    for (const w of waiting) w.reject(err);
  }
}

function replyError(reply: CommitThreadReply): Error | undefined {
  if ('conflict' in reply) return new ConcurrentUpdateError(reply.conflict);
  if ('error' in reply) return Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code });
  return undefined;
}

/**
 * The event loop's side of the commit thread (commit-worker.ts, ADR 0062): hands it prepared
 * batches and task counts, in order, and settles each from its answer.
 *
 * An answer's `settle` runs synchronously in the message's handler, in the order the thread
 * answered: a store can keep a figure exact across answers (knownTaskCount) with no await between.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker, workerModuleUrl } from '../../config/worker-module.js';
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

export type CommitThreadRequest = { id: number; plan: unknown[] } | { id: number; agentId: string; owner: string } | { autoCheckpoint: true } | { close: true };

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
  /** why the thread stopped when nobody closed it: every commit fails from then on */
  #stopped: Error | undefined;
  readonly #onStopped: ((err: Error) => void) | undefined;
  /** close() has asked the thread to end: its exit is expected */
  #closeSent = false;

  private constructor(worker: Worker, onStopped?: (err: Error) => void) {
    this.#worker = worker;
    this.#onStopped = onStopped;
    this.#exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: CommitThreadReply) => {
      const w = this.#waiting.get(reply.id);
      if (!w) return;
      this.#waiting.delete(reply.id);
      this.#idleCheck();
      w.settle(reply);
    });
    // An uncaught exception (or running out of memory) emits 'error' and then 'exit'; terminate()
    // and process.exit() in the thread emit 'exit' alone. The first one names the cause.
    worker.on('error', (err) => this.#died(`an uncaught error: ${err.message}`, err));
    worker.on('exit', (code) => this.#died(`exit code ${code}`));
    worker.unref();
  }

  /**
   * Undefined when no worker module is available; the store commits on its own connection then.
   * `onStopped` is told once if the thread ends without close() (ADR 0062's amendment).
   */
  static start(data: CommitThreadData, onStopped?: (err: Error) => void): CommitThread | undefined {
    const url = workerModuleUrl('./commit-worker.js', import.meta.url);
    if (!url) return undefined;
    return new CommitThread(startWorker(url, data), onStopped);
  }

  /** Set once the thread has ended without close(): its cause. Commits fail with it until a restart. */
  get stopped(): Error | undefined {
    return this.#stopped;
  }

  /** The checkpointer thread has stopped: the commit connection runs SQLite's automatic checkpoints again. */
  autoCheckpoint(): void {
    if (!this.#ended) this.#worker.postMessage({ autoCheckpoint: true } satisfies CommitThreadRequest);
  }

  /**
   * Test seam (test/store/sqlite-thread-death.test.ts), never called by the server: ends the thread
   * for real. 'terminate' stops it where it is (Worker.terminate: as at a fatal error); 'uncaught'
   * posts it a message its handler cannot read, so it throws outside any try, as a bug would.
   */
  killForTests(how: 'terminate' | 'uncaught'): void {
    if (how === 'terminate') void this.#worker.terminate();
    else this.#worker.postMessage(null);
  }

  /**
   * Runs `plan` (encodeBatch) as one transaction on the thread. `onCommitted` runs synchronously when the
   * answer arrives, before the promise resolves; a refusal rejects with the thread's error (a
   * ConcurrentUpdateError for a version or unique conflict, else an Error with SQLite's code).
   */
  commit(plan: unknown[], onCommitted: () => void): Promise<void> {
    // The answer's closures are made apart from the plan: once posted, the thread has its own copy,
    // and a closure over it would keep the plan's values alive (copied by every scavenge) until the
    // answer comes (issue 26, tail21).
    const answer = commitAnswer(onCommitted);
    try {
      this.#send({ id: this.#takeId(), plan }, answer.waiting);
    } catch (err) {
      answer.waiting.reject(err);
    }
    return answer.promise;
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
      this.#closeSent = true;
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

  /** The thread has ended: unless close() ended it, that is a failure, named once. */
  #died(cause: string, err?: Error): void {
    if (this.#closeSent || this.#stopped) {
      this.#fail(this.#ended ?? new Error('sqlite store is closed'));
      return;
    }
    this.#stopped = new Error(`the sqlite commit thread stopped (${cause}): no task can be stored until the server restarts`, { cause: err });
    this.#fail(this.#stopped);
    this.#onStopped?.(this.#stopped);
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

/** A commit's promise and the entry that settles it from the thread's answer. */
function commitAnswer(onCommitted: () => void): { promise: Promise<void>; waiting: Waiting } {
  let waiting!: Waiting;
  const promise = new Promise<void>((resolve, reject) => {
    waiting = {
      reject,
      settle: (reply) => {
        const err = replyError(reply);
        if (err) return reject(err);
        onCommitted();
        resolve();
      },
    };
  });
  return { promise, waiting };
}

function replyError(reply: CommitThreadReply): Error | undefined {
  if ('conflict' in reply) return new ConcurrentUpdateError(reply.conflict);
  if ('error' in reply) return Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code });
  return undefined;
}

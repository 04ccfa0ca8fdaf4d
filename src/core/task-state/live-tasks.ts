/**
 * The one owner of the in-memory working copies: the tasks with activity in this process (a
 * running executor, commits in flight). Every part of the engine finds a copy here, and only
 * here is one added (`load`, `adopt`) or removed (`evict`, `drop`), so the rule for when a copy
 * may be forgotten is written once.
 */
import type { Store, StoredTask } from '../../store/store.js';
import { TransientMap } from '../../memory/transient-map.js';
import { LiveTask } from './live-task.js';

export class LiveTasks {
  private readonly copies = new TransientMap<LiveTask>();
  /** loads in flight: a second caller for the same task waits for the first one's */
  private readonly loading = new Map<string, Promise<LiveTask | undefined>>();

  constructor(private readonly store: Pick<Store, 'getTask' | 'listPushConfigs'>) {}

  /** The working copy of a task, if this process has one. */
  get(taskId: string): LiveTask | undefined {
    return this.copies.get(taskId);
  }

  has(taskId: string): boolean {
    return this.copies.has(taskId);
  }

  /** every working copy (shutdown waits for their commits) */
  values(): IterableIterator<LiveTask> {
    return this.copies.values();
  }

  get size(): number {
    return this.copies.size;
  }

  /**
   * The working copy of a task, loaded from the store (with its push configs) when this process
   * has none. Concurrent loads of one task read it once and share the copy. No visibility check:
   * callers scope it (core/task-state/task-directory.ts).
   */
  load(agentId: string, taskId: string): Promise<LiveTask | undefined> {
    const held = this.copies.get(taskId);
    if (held) return Promise.resolve(held);
    let p = this.loading.get(taskId);
    if (!p) {
      p = (async () => {
        const s = await this.store.getTask(agentId, taskId);
        if (!s) return undefined;
        const again = this.copies.get(taskId);
        if (again) return again;
        const created = await this.fromStored(s);
        // A copy that appeared meanwhile (a run started here) is the task's; the read is stale.
        const raced = this.copies.get(taskId);
        if (raced) return raced;
        this.copies.set(taskId, created);
        return created;
      })().finally(() => this.loading.delete(taskId));
      this.loading.set(taskId, p);
    }
    return p;
  }

  /**
   * Makes a stored task the working copy, replacing any copy here: the caller has just taken the
   * task over in the store (a claimed orphan, start-up recovery), so the stored state is the truth.
   * `init` marks the copy before anyone can find it. An executor still running on the replaced
   * copy (this replica claimed back a task whose lease lapsed while it ran) is stopped: it worked
   * from a state the claim superseded, and the copy's new run starts from the stored one (ADR 0070).
   */
  async adoptStored(s: StoredTask, init?: (live: LiveTask) => void): Promise<LiveTask> {
    const live = await this.fromStored(s);
    init?.(live);
    const replaced = this.copies.get(s.task.id);
    if (replaced?.run && replaced !== live) {
      replaced.run.finished = true;
      replaced.run.cancel();
    }
    this.copies.set(s.task.id, live);
    return live;
  }

  /** A copy of a stored task with its push configs, not yet anyone's. */
  private async fromStored(s: StoredTask): Promise<LiveTask> {
    const live = LiveTask.fromStored(s);
    for (const c of await this.store.listPushConfigs(s.task.id)) live.pushTargets.set(c.config.id, c.config);
    return live;
  }

  /** Makes `live` the task's working copy: a task a run creates here, or one this process took over. */
  adopt(live: LiveTask): void {
    this.copies.set(live.task.id, live);
  }

  /** Whether nothing here uses the copy any more: no executor, no commit in flight. */
  static idle(live: LiveTask): boolean {
    return live.pending === 0 && !live.run;
  }

  /** Forgets a copy nothing uses (no executor, no commit in flight): the store has it all. */
  evict(live: LiveTask): void {
    if (LiveTasks.idle(live)) this.drop(live);
  }

  /**
   * Forgets the copy whatever its state (its commit failed, or another replica took the task): the
   * next access reloads the truth from the store. A newer copy of the same task is kept.
   */
  drop(live: LiveTask): void {
    if (this.copies.get(live.task.id) === live) this.copies.delete(live.task.id);
  }
}

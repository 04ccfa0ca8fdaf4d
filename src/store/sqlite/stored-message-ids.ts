/**
 * The (agent, owner, messageId) keys an embedded store holds (ADR 0063): a MessageIdFilter fed by
 * every commit and, once, by a build from the database in chunks, so a SendMessage lookup the
 * filter proves absent is not queried. Consulted only once that build is complete.
 */
import type Sqlite from 'better-sqlite3';
import { MessageIdFilter } from '../message-id-filter.js';

/** Keys read per step of the build (~1 ms each); the event loop turns between steps. */
export const MESSAGE_ID_BUILD_CHUNK = 2_000;
const KEY = 'select agent_id, owner, origin_message_id from tasks where origin_message_id is not null';
const ORDER = 'order by agent_id, owner, origin_message_id limit ?';

/**
 * The build's statements: about how many tasks there are (one step down the table's B-tree: tasks
 * are never deleted, so the largest rowid is near their number), then every key in the order of
 * the unique index, which covers them, in chunks after the last key read.
 */
export const MESSAGE_ID_SQL = {
  maxTaskRowid: 'select max(rowid) from tasks',
  firstMessageIds: `${KEY} ${ORDER}`,
  nextMessageIds: `${KEY} and (agent_id, owner, origin_message_id) > (?, ?, ?) ${ORDER}`,
};

/** where the build is; 'off' on a shared file, where the filter is never consulted */
export type MessageIdBuild = 'not started' | 'running' | 'complete' | 'failed' | 'off';

export class StoredMessageIds {
  readonly #filter = new MessageIdFilter();
  #build: MessageIdBuild;

  /** `sharedFile`: another connection writes tasks to the file, so absence can never be proven here. */
  constructor(
    private readonly raw: Sqlite.Database,
    sharedFile: boolean,
  ) {
    this.#build = sharedFile ? 'off' : 'not started';
  }

  /** A key about to be written (before the write: a failed batch leaves a "maybe", never a wrong answer). */
  add(agentId: string, owner: string, messageId: string): void {
    this.#filter.add(agentId, owner, messageId);
  }

  /** False only when the key is certainly not stored; the first call begins the build. */
  mayHold(agentId: string, owner: string, messageId: string): boolean {
    if (this.#build === 'complete') return this.#filter.mayHold(agentId, owner, messageId);
    if (this.#build === 'not started') this.#startBuild();
    return true;
  }

  status(): { build: MessageIdBuild; keys: number; bytes: number; layers: number } {
    return { build: this.#build, ...this.#filter.stats() };
  }

  /**
   * Adds every key the database holds, MESSAGE_ID_BUILD_CHUNK at a time, the event loop turning
   * between chunks. Begun by the first lookup, so after migrations (which may rebuild the table) and
   * never in a CLI command that looks nothing up. Keys committed meanwhile are added by add() (and
   * may be read here too: harmless). The keys stored before are never changed or moved in the index
   * (tasks are not deleted, and no update writes the three columns), so the walk in index order
   * meets each of them. A failure leaves it incomplete: lookups query.
   */
  #startBuild(): void {
    this.#build = 'running';
    const filter = this.#filter;
    let first: Sqlite.Statement;
    let next: Sqlite.Statement;
    const step = (after: unknown[] | undefined): void => {
      try {
        if (!this.raw.open) return void (this.#build = 'failed');
        const rows = (after === undefined ? first.all(MESSAGE_ID_BUILD_CHUNK) : next.all(after[0], after[1], after[2], MESSAGE_ID_BUILD_CHUNK)) as string[][];
        for (const r of rows) filter.add(r[0]!, r[1]!, r[2]!);
        if (rows.length < MESSAGE_ID_BUILD_CHUNK) return void (this.#build = 'complete');
        // The next chunk starts after the last key read back exactly: one with U+FFFD may have been
        // a lone surrogate (stored ED A0 80, read back EF BF BD), and a cursor there would skip the
        // keys between the two. Keys after the cursor are read again: harmless.
        let last = rows.length - 1;
        while (last >= 0 && rows[last]!.some((v) => v.includes('\ufffd'))) last--;
        if (last < 0) return void (this.#build = 'failed');
        setImmediate(step, rows[last]);
      } catch {
        this.#build = 'failed';
      }
    };
    try {
      first = this.raw.prepare(MESSAGE_ID_SQL.firstMessageIds).raw();
      next = this.raw.prepare(MESSAGE_ID_SQL.nextMessageIds).raw();
      // One layer for them all, with room for as many again.
      filter.reserve(2 * Number(this.raw.prepare(MESSAGE_ID_SQL.maxTaskRowid).pluck().get() ?? 0));
    } catch {
      this.#build = 'failed';
      return;
    }
    setImmediate(step, undefined);
  }
}

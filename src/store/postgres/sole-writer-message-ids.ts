/**
 * The (agent, owner, messageId) keys of a PostgreSQL store, as the embedded store keeps them (ADR
 * 0063), trusted only while this replica is the only one writing tasks (ADR 0095). Every
 * SendMessage asks findTaskByMessageId before it runs the agent; on PostgreSQL that was a
 * statement, a backend wake-up and a round trip for nearly every request, to find nothing.
 *
 * Other replicas write to the same tables, so a filter fed by this replica's commits proves a
 * key absent only while no other replica has written since the filter was built. The event bus
 * knows when this replica is alone (the events channel's only listener; a replica of this build
 * greets the others before it serves) and numbers each spell of being alone. A filter is built
 * during one spell and consulted only while that spell lasts: when the spell ends (another
 * replica, or the bus unsure) lookups query again, and the next spell reads the table into the
 * filter again, so what others wrote in between is in it. Anything not yet known queries, as before.
 *
 * One filter for the store's life, never emptied: a key is added before its commit is sent, so a
 * commit still in flight when a spell begins is in the filter whatever the table shows the read.
 * Each spell's read adds the table's keys again (counted twice, harmless); past MAX_KEYS added,
 * the filter is given up and every lookup queries.
 */
import type pg from 'pg';
import { MessageIdFilter } from '../message-id-filter.js';

/** Keys read per step of a build. */
export const SOLE_WRITER_BUILD_CHUNK = 5_000;

/** Every key after a task id, in the primary key's order: tasks are never deleted nor their keys changed. */
const KEYS_AFTER = `select id, agent_id, owner, origin_message_id from tasks
                     where id > $1 and origin_message_id is not null order by id limit $2`;

/** The number of the present spell of being alone, or undefined while this replica is not alone. */
export type AloneSpell = () => number | undefined;

export type SoleWriterBuild = 'off' | 'running' | 'complete' | 'failed' | 'given up';

/** Keys added (repeats counted) past which the filter is given up: ~20 MiB of bits at most. */
export const MAX_KEYS = 16_000_000;

export class SoleWriterMessageIds {
  #spellOf: AloneSpell | undefined;
  /** the spell the filter was built in (and is valid for) */
  #spell: number | undefined;
  readonly #filter = new MessageIdFilter();
  #build: SoleWriterBuild = 'off';

  constructor(private readonly pool: pg.Pool) {}

  /** From now on a key is proven absent only during a spell this tells of (none before it is called). */
  trustWhile(spellOf: AloneSpell): void {
    this.#spellOf = spellOf;
  }

  /** A key about to be written (before the write: a failed batch leaves a "maybe", never a wrong answer). */
  add(agentId: string, owner: string, messageId: string): void {
    this.#filter.add(agentId, owner, messageId);
  }

  /** False only when no task of this key is stored: this replica alone, in the spell its filter was built in. */
  mayHold(agentId: string, owner: string, messageId: string): boolean {
    const spell = this.#spellOf?.();
    if (spell === undefined || this.#build === 'given up') return true;
    if (spell !== this.#spell) {
      this.#startBuild(spell);
      return true;
    }
    return this.#build === 'complete' ? this.#filter.mayHold(agentId, owner, messageId) : true;
  }

  status(): { build: SoleWriterBuild; spell: number | undefined; keys: number } {
    return { build: this.#build, spell: this.#spell, keys: this.#filter.stats().keys };
  }

  /**
   * Reads every key the table holds into the filter, in chunks, for this spell; the keys this
   * replica commits meanwhile are added by add(). Complete only if the spell is still the present
   * one when the read ends: a read begun in an earlier spell never completes a later one.
   */
  #startBuild(spell: number): void {
    this.#spell = spell;
    if (this.#filter.stats().keys > MAX_KEYS) {
      this.#build = 'given up';
      return;
    }
    this.#build = 'running';
    void this.#fill(spell);
  }

  async #fill(spell: number): Promise<void> {
    let after = '';
    try {
      for (;;) {
        const { rows } = await this.pool.query<string[]>({ text: KEYS_AFTER, values: [after, SOLE_WRITER_BUILD_CHUNK], rowMode: 'array' });
        for (const r of rows) this.#filter.add(r[1]!, r[2]!, r[3]!);
        if (this.#spell !== spell) return;
        if (rows.length < SOLE_WRITER_BUILD_CHUNK) {
          this.#build = 'complete';
          return;
        }
        after = rows[rows.length - 1]![0]!;
      }
    } catch {
      if (this.#spell === spell) this.#build = 'failed';
    }
  }
}

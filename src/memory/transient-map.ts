/**
 * A string-keyed map for entries that come and go at the request rate (a task's working copy, a
 * running executor, a task's subscribers), kept so that the garbage collector drops them young.
 *
 * Why not a plain Map (ADR 0047): V8 replaces a Map's hash table when a `delete` shrinks it or an
 * insertion finds it full of deleted entries, and the replaced table keeps a link to its successor
 * and the entries it held (so that an iterator still walking it can follow). Once one table of a
 * long-lived Map has reached the old generation, that dead table holds every later table, and
 * every value they held, through each young-generation collection until the next full one.
 *
 * So a Map is used here without `delete`: an entry is removed by overwriting its value with
 * `undefined` in place (the table lets the value go at once and is not replaced), and once as many
 * entries are removed as are live (at least `REMOVED_BEFORE_RENEWAL`), the live ones move to a
 * new Map. The old Map and its tables are then dropped whole: no table of the new one is linked
 * from them. V8 still replaces a table as a new Map grows, but a Map lives only for a few dozen
 * removals, so under load its tables die young. (ADR 0047 first used a null-prototype object, a
 * V8 dictionary: the same property, but each lookup went through the megamorphic keyed-load stub
 * and each delete through the runtime, ~5.6 k instructions a blocking request: bare32.)
 *
 * Values may not be undefined (undefined means "absent"). Iteration order is unspecified.
 */
export class TransientMap<V extends NonNullable<unknown>> {
  #entries = new Map<string, V | undefined>();
  #size = 0;
  /** entries overwritten with undefined since `#entries` was made */
  #removed = 0;

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  has(key: string): boolean {
    return this.#entries.get(key) !== undefined;
  }

  set(key: string, value: V): this {
    const entries = this.#entries;
    if (entries.get(key) === undefined) this.#size++;
    entries.set(key, value);
    return this;
  }

  delete(key: string): boolean {
    const entries = this.#entries;
    if (entries.get(key) === undefined) return false;
    entries.set(key, undefined);
    this.#size--;
    if (++this.#removed >= REMOVED_BEFORE_RENEWAL && this.#removed >= this.#size) this.#renew();
    return true;
  }

  /** Entries deleted while iterating are not visited; entries added may or may not be. */
  *values(): IterableIterator<V> {
    // The keys of the Map as it is now, each looked up where it is then: a renewal while walking
    // leaves this Map behind, and a deleted entry is absent from the current one.
    for (const key of this.#entries.keys()) {
      const v = this.#entries.get(key);
      if (v !== undefined) yield v;
    }
  }

  clear(): void {
    this.#entries = new Map();
    this.#size = 0;
    this.#removed = 0;
  }

  /** The live entries into a new Map; the old one, its tables and the removed keys are dropped together. */
  #renew(): void {
    const next = new Map<string, V | undefined>();
    // forEach with a shared function, not `for (const [key, value] of …)`: that made an entry pair
    // and its backing store for every live entry (~64 B each; five maps renewed every ~32 requests:
    // ~0.3 KB a request, issue 26).
    this.#entries.forEach(copyLive, next);
    this.#entries = next;
    this.#removed = 0;
  }
}

/** `#renew`'s step: a live entry copied into the new Map (`this`). */
function copyLive(this: Map<string, unknown>, value: unknown, key: string): void {
  if (value !== undefined) this.set(key, value);
}

/**
 * Removals a Map takes before its live entries move to a new one (and at least as many as are
 * live, so the move costs one copy a removal at most). Small: the removed keys stay in the table until then.
 */
const REMOVED_BEFORE_RENEWAL = 32;

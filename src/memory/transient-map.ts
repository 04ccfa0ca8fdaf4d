/**
 * A string-keyed map for entries that come and go at the request rate (a task's working copy, a
 * running executor, a task's subscribers), kept so that the garbage collector drops them young.
 *
 * Why not a Map (ADR 0047): V8 replaces a Map's table whenever it fills up with deleted entries,
 * and the replaced table keeps a link to its successor and the entries it held (so that an
 * iterator still walking it can follow). Once one table of a long-lived Map has reached the old
 * generation, that dead table holds every later table, and every value they held, through each
 * young-generation collection until the next full one: with the maps of in-flight work, each
 * request's objects were copied twice and promoted (with pretenuring, server/heap-settings.ts,
 * ~1.3 MB per scavenge at ~6,000 req/s; the scavenges were the 99th percentile at 8 connections).
 * An object without prototype is a hash table of its own (dictionary mode) whose replaced tables
 * keep nothing alive.
 *
 * Values may not be undefined (undefined means "absent"). Iteration order is unspecified.
 */
export class TransientMap<V extends NonNullable<unknown>> {
  #entries: Record<string, V> = Object.create(null);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    return this.#entries[key];
  }

  has(key: string): boolean {
    return this.#entries[key] !== undefined;
  }

  set(key: string, value: V): this {
    if (this.#entries[key] === undefined) this.#size++;
    this.#entries[key] = value;
    return this;
  }

  delete(key: string): boolean {
    if (this.#entries[key] === undefined) return false;
    delete this.#entries[key];
    this.#size--;
    return true;
  }

  /** Entries deleted while iterating are not visited; entries added may or may not be. */
  *values(): IterableIterator<V> {
    const entries = this.#entries;
    for (const key in entries) {
      const v = entries[key];
      if (v !== undefined) yield v;
    }
  }

  clear(): void {
    this.#entries = Object.create(null);
    this.#size = 0;
  }
}

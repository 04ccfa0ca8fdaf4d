/**
 * A TransientMap (ADR 0047) whose key may hold several values: the usual one alone, an array only
 * when a second arrives. For request-rate bookkeeping where a key is nearly always held once (a
 * task's open stream, a caller's in-flight request id), without a Set per key, whose replaced
 * tables would keep what it held alive through young collections as a Map's do.
 *
 * Values are compared by identity; a value may not be an array (an array is the several-values
 * form). Iteration order is unspecified.
 */
import { TransientMap } from './transient-map.js';

export class TransientMultiMap<V extends object> {
  readonly #byKey = new TransientMap<V | V[]>();

  /** keys holding at least one value */
  get size(): number {
    return this.#byKey.size;
  }

  /** How many values `key` holds. */
  count(key: string): number {
    const held = this.#byKey.get(key);
    return held === undefined ? 0 : Array.isArray(held) ? held.length : 1;
  }

  /** The value `key` holds when it holds exactly one. */
  only(key: string): V | undefined {
    const held = this.#byKey.get(key);
    return held === undefined ? undefined : Array.isArray(held) ? (held.length === 1 ? held[0] : undefined) : held;
  }

  add(key: string, value: V): void {
    const held = this.#byKey.get(key);
    if (held === undefined) this.#byKey.set(key, value);
    else if (Array.isArray(held)) held.push(value);
    else this.#byKey.set(key, [held, value]);
  }

  /** Removes `value` from `key`; false when it was not there. */
  remove(key: string, value: V): boolean {
    const held = this.#byKey.get(key);
    if (held === value) return this.#byKey.delete(key);
    if (!Array.isArray(held)) return false;
    const i = held.indexOf(value);
    if (i < 0) return false;
    held.splice(i, 1);
    if (held.length === 0) this.#byKey.delete(key);
    return true;
  }

  /** Every value, gathered first (so a caller may remove while walking them). */
  all(): V[] {
    const out: V[] = [];
    for (const held of this.#byKey.values()) {
      if (Array.isArray(held)) out.push(...held);
      else out.push(held);
    }
    return out;
  }
}

/**
 * The keys a span (event, link) keeps of its attributes, as the SDK's span keeps them, where they
 * lie in a packed part's text: a key set again found in its first place (compared in the text up to
 * LINEAR_KEYS keys, by a map past them), and the order `for…in` lists the kept keys in (array-index
 * keys first, ascending, then the others as set). The general attribute path of both requests'
 * encoders (otlp-json.ts, otlp-proto-attributes.ts) keeps its keys here; their as-read paths (every
 * key new, none a digit first) do not come here.
 */
import { isArrayIndex } from './otlp-json-values.js';

/** Keys compared one by one up to this many; past it a map finds a key set again. */
export const LINEAR_KEYS = 16;

export class KeptKeys {
  /** each kept key's place in the text and its length, by slot */
  readonly at: number[] = [];
  readonly length: number[] = [];
  /** keys kept */
  count = 0;
  #text = '';
  #digit = false;
  #index: Map<string, number> | undefined;

  /** Starts a span's (event's, link's) keys, read from `text`. */
  start(text: string): void {
    this.#text = text;
    this.count = 0;
    this.#digit = false;
    this.#index = undefined;
  }

  /** The slot of the key of `length` characters at `at` when it is kept already; else -1. */
  find(at: number, length: number): number {
    if (this.#index) return this.#index.get(this.#text.slice(at, at + length)) ?? -1;
    for (let j = 0; j < this.count; j++) if (this.length[j] === length && this.#same(this.at[j]!, at, length)) return j;
    return -1;
  }

  /** Keeps the key of `length` characters at `at` (not empty, not kept already) as slot `count`. */
  add(at: number, length: number): void {
    const count = this.count;
    const text = this.#text;
    this.at[count] = at;
    this.length[count] = length;
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) this.#digit = true;
    if (this.#index) this.#index.set(text.slice(at, at + length), count);
    else if (count === LINEAR_KEYS) {
      // past 16 keys a map finds a key set again, not a search
      this.#index = new Map();
      for (let j = 0; j <= count; j++) this.#index.set(text.slice(this.at[j]!, this.at[j]! + this.length[j]!), j);
    }
    this.count = count + 1;
  }

  /** The slots in the order an object lists their keys; undefined when that is the order kept (no key starts with a digit). */
  order(): number[] | undefined {
    if (!this.#digit) return undefined;
    const text = this.#text;
    const keys = Array.from({ length: this.count }, (_, j) => text.slice(this.at[j]!, this.at[j]! + this.length[j]!));
    const order = keys.flatMap((key, j) => (isArrayIndex(key) ? [j] : []));
    order.sort((a, b) => Number(keys[a]) - Number(keys[b]));
    for (let j = 0; j < this.count; j++) if (!isArrayIndex(keys[j]!)) order.push(j);
    return order;
  }

  #same(a: number, b: number, length: number): boolean {
    const text = this.#text;
    for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
    return true;
  }
}

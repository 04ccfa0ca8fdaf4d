/**
 * The message ids the embedded store holds, as a Bloom filter (ADR 0063): a SendMessage whose
 * (agent, owner, messageId) the filter proves absent skips the idempotency query. It answers
 * "absent" only for a key never added, so the store adds every key it commits (before the write)
 * and every key in the database when the filter is built; a key it wrongly calls "maybe" costs
 * the query it would have run anyway.
 *
 * Layers, each a bit array sized for a capacity: when the newest is full, a new one twice its
 * capacity is added, with one hash more (each layer's false-positive rate at capacity is 2^-k, so
 * the sum over any number of layers stays below 2^-6 = 1.56 %). Each layer has k / ln 2 bits a
 * key at capacity: 10.1 for the first (k = 7, 0.78 %).
 */

/** the first layer's capacity, unless a larger one is reserved (~81 KiB of bits) */
const MIN_CAPACITY = 65_536;
const FIRST_K = 7;
/** past this, a layer's rate is below 2^-16 already; more hashes only cost time */
const MAX_K = 16;

class Layer {
  readonly bits: Int32Array;
  readonly size: number;
  count = 0;

  constructor(
    readonly capacity: number,
    readonly k: number,
  ) {
    // k / ln 2 bits a key: the size at which a full layer's false-positive rate is 2^-k
    this.size = Math.ceil((capacity * k) / Math.LN2);
    this.bits = new Int32Array(Math.ceil(this.size / 32));
  }

  add(a: number, b: number): void {
    const m = this.size;
    let x = a % m;
    const step = (b % (m - 1)) + 1;
    const bits = this.bits;
    for (let i = 0; i < this.k; i++) {
      bits[x >>> 5]! |= 1 << (x & 31);
      x += step;
      if (x >= m) x -= m;
    }
    this.count++;
  }

  has(a: number, b: number): boolean {
    const m = this.size;
    let x = a % m;
    const step = (b % (m - 1)) + 1;
    const bits = this.bits;
    for (let i = 0; i < this.k; i++) {
      if ((bits[x >>> 5]! & (1 << (x & 31))) === 0) return false;
      x += step;
      if (x >= m) x -= m;
    }
    return true;
  }
}

// The two hashes of the last key, set by hashKey (no object per call).
let hashA = 0;
let hashB = 0;
/**
 * Whether the last key had a UTF-16 surrogate. SQLite stores a lone surrogate as its 3 bytes
 * (ED A0 80) and reads it back as 3 × U+FFFD: the key the build reads is not the string a lookup
 * binds, though the query matches them. Such keys (and, not to tell them apart, astral characters)
 * are never called absent.
 */
let surrogate = false;

/**
 * Two 31-bit hashes of the three strings, each string's length mixed in before it (so no two
 * different triples read as one sequence): FNV-1a and a rotate-multiply, each finished with
 * murmur3's avalanche. The probes are a + i·b (double hashing).
 */
function hashKey(agentId: string, owner: string, messageId: string): void {
  hashA = 0x811c9dc5;
  hashB = 0x9747b28c;
  surrogate = false;
  mix(agentId);
  mix(owner);
  mix(messageId);
  hashA = avalanche(hashA) & 0x7fffffff;
  hashB = avalanche(hashB ^ 0x5bd1e995) & 0x7fffffff;
}

function mix(s: string): void {
  const n = s.length;
  let a = Math.imul(hashA ^ n, 0x01000193);
  let b = Math.imul(((hashB << 5) | (hashB >>> 27)) ^ n, 0x9e3779b1);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c & 0xf800) === 0xd800) surrogate = true;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(((b << 5) | (b >>> 27)) ^ c, 0x9e3779b1);
  }
  hashA = a;
  hashB = b;
}

function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class MessageIdFilter {
  readonly #layers: Layer[] = [];

  /** Adds a key; a key added twice is harmless (it only counts twice toward the layer's capacity). */
  add(agentId: string, owner: string, messageId: string): void {
    hashKey(agentId, owner, messageId);
    let layer = this.#layers.at(-1);
    if (layer === undefined || layer.count >= layer.capacity) layer = this.#grow(0);
    layer.add(hashA, hashB);
  }

  /** False only for a key never added (and never for one with a surrogate, see `surrogate`). */
  mayHold(agentId: string, owner: string, messageId: string): boolean {
    const layers = this.#layers;
    hashKey(agentId, owner, messageId);
    if (surrogate) return true;
    for (let i = layers.length - 1; i >= 0; i--) if (layers[i]!.has(hashA, hashB)) return true;
    return false;
  }

  /** Makes room for `n` more keys in the newest layer (a build that knows about how many it will add). */
  reserve(n: number): void {
    const layer = this.#layers.at(-1);
    if (layer === undefined || layer.capacity - layer.count < n) this.#grow(n);
  }

  /** keys added, bytes of bits held, layers */
  stats(): { keys: number; bytes: number; layers: number } {
    let keys = 0;
    let bytes = 0;
    for (const l of this.#layers) {
      keys += l.count;
      bytes += l.bits.byteLength;
    }
    return { keys, bytes, layers: this.#layers.length };
  }

  #grow(atLeast: number): Layer {
    const last = this.#layers.at(-1);
    const capacity = Math.max(MIN_CAPACITY, atLeast, last ? 2 * last.capacity : 0);
    const k = Math.min(MAX_K, FIRST_K + this.#layers.length);
    const layer = new Layer(capacity, k);
    this.#layers.push(layer);
    return layer;
  }
}

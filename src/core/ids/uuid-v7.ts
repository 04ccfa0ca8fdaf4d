/**
 * RFC 9562 UUIDv7: a millisecond timestamp followed by random bits. Task and context ids are
 * time-ordered so that the store's primary-key and event-log indexes grow at their right edge:
 * random v4 keys dirty a random B-tree page per insert, which measured as most of the SQLite
 * commit cost under load (docs/benchmarks.md).
 */
import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 16 * 1024;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;
let lastMs = 0;
let counter = 0;

/** The ASCII codes of the two hex digits of each byte, for writing an id into `text`. */
const HEX_CODES = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const digits = i.toString(16).padStart(2, '0');
  HEX_CODES[i] = (digits.charCodeAt(0) << 8) | digits.charCodeAt(1);
}
/**
 * The id is written as ASCII into this buffer and read out as one string: joining 20 two-digit
 * strings made 19 intermediate strings per id, ~700 bytes of garbage for each of the three ids an
 * echo mints (ADR 0046).
 */
const text = Buffer.from('xxxxxxxx-xxxx-7xxx-xxxx-xxxxxxxxxxxx', 'latin1');
/** Offsets in `text` of the 16 bytes' digit pairs. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

function put(i: number, byte: number): void {
  const codes = HEX_CODES[byte]!;
  text[AT[i]!] = codes >>> 8;
  text[AT[i]! + 1] = codes & 0xff;
}

export function uuidv7(): string {
  if (poolOffset + 10 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let ms = Date.now();
  // Monotonic within a millisecond (RFC 9562 §6.2 method 1): a 12-bit counter in rand_a.
  if (ms <= lastMs) {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = pool[poolOffset]! & 0x7f;
  }
  const o = poolOffset;
  poolOffset += 10;
  const hi = Math.floor(ms / 0x1000000);
  const lo = ms % 0x1000000;
  put(0, (hi >>> 16) & 0xff);
  put(1, (hi >>> 8) & 0xff);
  put(2, hi & 0xff);
  put(3, (lo >>> 16) & 0xff);
  put(4, (lo >>> 8) & 0xff);
  put(5, lo & 0xff);
  put(6, 0x70 | ((counter >>> 8) & 0x0f));
  put(7, counter & 0xff);
  put(8, 0x80 | (pool[o]! & 0x3f));
  for (let i = 1; i < 8; i++) put(8 + i, pool[o + i]!);
  return text.toString('latin1');
}

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

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** The two hex digits of a byte (every index 0–255 is in the table). */
const h = (byte: number): string => HEX[byte]!;

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
  const b = pool.subarray(poolOffset, poolOffset + 10);
  poolOffset += 10;
  const hi = Math.floor(ms / 0x1000000);
  const lo = ms % 0x1000000;
  return (
    h((hi >>> 16) & 0xff) +
    h((hi >>> 8) & 0xff) +
    h(hi & 0xff) +
    h((lo >>> 16) & 0xff) +
    '-' +
    h((lo >>> 8) & 0xff) +
    h(lo & 0xff) +
    '-' +
    h(0x70 | ((counter >>> 8) & 0x0f)) +
    h(counter & 0xff) +
    '-' +
    h(0x80 | (b[0]! & 0x3f)) +
    h(b[1]!) +
    '-' +
    h(b[2]!) +
    h(b[3]!) +
    h(b[4]!) +
    h(b[5]!) +
    h(b[6]!) +
    h(b[7]!)
  );
}

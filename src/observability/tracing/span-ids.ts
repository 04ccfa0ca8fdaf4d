/**
 * Trace and span ids cut from one block of random bytes at a time. The SDK's generator builds each
 * id from `Math.random` a few bytes at a time and joins hex digits into a new string (two of them
 * per root span); here one `randomFillSync` and one hex conversion serve 256 span ids, and each id
 * is a slice of that string.
 */
import { randomFillSync } from 'node:crypto';

const BLOCK_BYTES = 4096;
const block = Buffer.allocUnsafe(BLOCK_BYTES);
let hex = '';
let at = 0;

function take(chars: number): string {
  if (at + chars > hex.length) {
    randomFillSync(block);
    hex = block.toString('hex');
    at = 0;
  }
  const id = hex.slice(at, (at += chars));
  // An all-zero id is invalid (W3C trace context): vanishingly rare, but never hand one out.
  return id.charCodeAt(0) === 48 && /^0+$/.test(id) ? take(chars) : id;
}

/** 16 hex digits. */
export const newSpanId = (): string => take(16);

/** 32 hex digits. */
export const newTraceId = (): string => take(32);

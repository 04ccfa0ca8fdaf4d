/**
 * Trace and span ids cut from one block of random bytes at a time. The SDK's generator builds each
 * id from `Math.random` a few bytes at a time and joins hex digits into a new string (two of them
 * per root span); here one `randomFillSync` and one hex conversion serve 512 span ids, and each id
 * is a slice of that string.
 *
 * Each id also has a position: the block's sequence number × ID_BLOCK_BYTES + its first byte's
 * offset in the block (`idAt`, set by every take). A span keeps its ids' positions and the packed
 * writer sends the block's bytes with the part and the position in place of the id's 32 or 16
 * characters, which the export thread writes as hex from the bytes (docs/benchmarks.md, traceid35:
 * the ids were ~40 % of the characters the loop joined into a part's text). A block is never
 * reused once replaced (a part may still hold it), and an id never spans two blocks.
 */
import { randomFillSync } from 'node:crypto';

/** The bytes of one block of ids: 512 span ids, or 256 trace ids. */
export const ID_BLOCK_BYTES = 4096;

/** Blocks kept findable by position: an id from an older block (a span alive that long) goes as text. */
const KEPT_BLOCKS = 16;

const kept: Buffer[] = [];
let block = Buffer.alloc(0);
let seq = -1;
let hex = '';
let at = ID_BLOCK_BYTES;

/** The position of the id the last `newSpanId`/`newTraceId` answered. */
export let idAt = -1;

function take(bytes: number): string {
  if (at + bytes > ID_BLOCK_BYTES) {
    // its own memory (not a slice of Node's pool): cloned with a part, only its 4 KB are copied
    block = Buffer.allocUnsafeSlow(ID_BLOCK_BYTES);
    randomFillSync(block);
    hex = block.toString('hex');
    kept[++seq % KEPT_BLOCKS] = block;
    at = 0;
  }
  const from = at;
  at += bytes;
  const id = hex.slice(2 * from, 2 * at);
  // An all-zero id is invalid (W3C trace context): vanishingly rare, but never hand one out.
  if (id.charCodeAt(0) === 48 && /^0+$/.test(id)) return take(bytes);
  idAt = seq * ID_BLOCK_BYTES + from;
  return id;
}

/** 16 hex digits. */
export const newSpanId = (): string => take(8);

/** 32 hex digits. */
export const newTraceId = (): string => take(16);

/** The block an id's position lies in, while it is one of the last KEPT_BLOCKS; undefined after. */
export function idBlock(position: number): Buffer | undefined {
  const s = Math.floor(position / ID_BLOCK_BYTES);
  return s > seq - KEPT_BLOCKS && s <= seq ? kept[s % KEPT_BLOCKS] : undefined;
}

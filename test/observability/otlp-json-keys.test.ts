/**
 * The one-copy pieces of a span's OTLP JSON (src/observability/tracing/otlp-json-keys.ts) must be
 * the bytes of the pieces they stand for, for every value, and for values they have no copy made
 * for (a kind outside SpanKind, a status code outside OTLP's three, attributes dropped), which the
 * request tests against the SDK cannot reach.
 */
import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../src/observability/tracing/json-bytes.js';
import { kindStart, usualTail } from '../../src/observability/tracing/otlp-json-keys.js';

function written(write: (w: JsonBytes) => void): string {
  const w = new JsonBytes(8);
  w.ascii('x');
  write(w);
  return w.buf.toString('latin1', 0, w.pos);
}

describe('the one-copy pieces of a span', () => {
  it('writes the kind plus one and the start time key, for every SpanKind and past them', () => {
    for (const kind of [0, 1, 2, 3, 4, 5, 9, 41]) expect(written((w) => kindStart(w, kind))).toBe(`x,"kind":${kind + 1},"startTimeUnixNano":`);
  });

  it('writes the dropped count, no events, the status code and no links up to the flags, for every code and dropped count', () => {
    for (const dropped of [0, 1, 12])
      for (const code of [0, 1, 2, 3, 17])
        expect(written((w) => usualTail(w, dropped, code))).toBe(`x,"droppedAttributesCount":${dropped},"events":[],"droppedEventsCount":0,"status":{"code":${code}},"links":[],"droppedLinksCount":0,"flags":`);
  });
});

/**
 * The one-copy pieces of a span's OTLP JSON (src/observability/tracing/otlp-json-keys.ts) must be
 * the bytes of the pieces they stand for, for every value, and for values they have no copy made
 * for (a kind outside SpanKind, a status code outside OTLP's three, attributes dropped), which the
 * request tests against the SDK cannot reach.
 */
import { describe, expect, it } from 'vitest';
import { constantOf, hasControl, JsonBytes } from '../../src/observability/tracing/json-bytes.js';
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

describe('the word-wise writes (four bytes a store)', () => {
  it('writes a constant of every length from 0 to 13, at every offset, growing the buffer', () => {
    for (let n = 0; n <= 13; n++)
      for (let offset = 0; offset < 5; offset++) {
        const s = 'abcdefghijklm'.slice(0, n);
        expect(
          written((w) => {
            w.ascii('-'.repeat(offset));
            w.constant(constantOf(s));
          }),
        ).toBe(`x${'-'.repeat(offset)}${s}`);
      }
  });

  it('copies a plain string of every length from 0 to 13, from every start, quoted', () => {
    const text = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const bytes = Buffer.from(`${text}....`, 'latin1');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let start = 0; start < 6; start++) for (let n = 0; n <= 13; n++) expect(written((w) => w.plainString(bytes, view, start, n))).toBe(`x"${text.slice(start, start + n)}"`);
  });

  it('finds a control character at every place of texts of every length from 0 to 13, and none where there is none', () => {
    for (let n = 0; n <= 13; n++) {
      for (const c of [0x00, 0x01, 0x1f, 0x20, 0x21, 0x7f]) {
        for (let at = 0; at < n; at++) {
          const bytes = Buffer.alloc(n + 4, 0x61);
          bytes[at] = c;
          // what follows the text is not read
          bytes[n] = 0x00;
          expect(hasControl(new DataView(bytes.buffer, bytes.byteOffset, bytes.length), n)).toBe(c < 0x20);
        }
      }
      const clean = Buffer.alloc(n + 4, 0x7e);
      clean.fill(0, n);
      expect(hasControl(new DataView(clean.buffer, clean.byteOffset, clean.length), n)).toBe(false);
    }
  });
});

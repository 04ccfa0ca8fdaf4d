import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { DATA_PART_COMPAT_KEY, partFromV1, partToV1 } from '../../../src/protocol/a2a-v03/parts.js';

const violation = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof A2AError && e.kind === 'InvalidParams') return e.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
};

describe('v0.3 parts → v1.0', () => {
  it('maps text, file bytes, file uri and data parts onto the v1.0 oneof', () => {
    expect(partToV1({ kind: 'text', text: 'hi', metadata: { a: 1 } }, 'p')).toEqual({ text: 'hi', metadata: { a: 1 } });
    expect(partToV1({ kind: 'file', file: { bytes: 'aGk=', name: 'hi.txt', mimeType: 'text/plain' } }, 'p')).toEqual({ raw: 'aGk=', filename: 'hi.txt', mediaType: 'text/plain' });
    expect(partToV1({ kind: 'file', file: { uri: 'https://x/y' } }, 'p')).toEqual({ url: 'https://x/y' });
    expect(partToV1({ kind: 'data', data: { k: [1] } }, 'p')).toEqual({ data: { k: [1] } });
  });

  it('infers a missing kind from the one content key present', () => {
    expect(partToV1({ text: 'hi' }, 'p')).toEqual({ text: 'hi' });
    expect(partToV1({ data: {} }, 'p')).toEqual({ data: {} });
  });

  it('unwraps a data part flagged as a wrapped non-object value', () => {
    expect(partToV1({ kind: 'data', data: { value: [1, 2] }, metadata: { [DATA_PART_COMPAT_KEY]: true } }, 'p')).toEqual({ data: [1, 2] });
    expect(partToV1({ kind: 'data', data: { value: 3 }, metadata: { [DATA_PART_COMPAT_KEY]: true, x: 'y' } }, 'p')).toEqual({ data: 3, metadata: { x: 'y' } });
  });

  it('refuses malformed parts naming the v0.3 field', () => {
    expect(violation(() => partToV1({ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x' } }, 'm.parts[0]'))).toBe('m.parts[0].file');
    expect(violation(() => partToV1({ kind: 'file', file: {} }, 'p'))).toBe('p.file');
    expect(violation(() => partToV1({ kind: 'file', file: { bytes: 'not base64!' } }, 'p'))).toBe('p.file.bytes');
    expect(violation(() => partToV1({ kind: 'data', data: 'str' }, 'p'))).toBe('p.data');
    expect(violation(() => partToV1({ kind: 'text' }, 'p'))).toBe('p.text');
    expect(violation(() => partToV1({ kind: 'video' }, 'p'))).toBe('p.kind');
    expect(violation(() => partToV1({}, 'p'))).toBe('p.kind');
    expect(violation(() => partToV1('text', 'p'))).toBe('p');
  });
});

describe('v1.0 parts → v0.3', () => {
  it('adds kind and nests file fields under file', () => {
    expect(partFromV1({ text: 'hi' })).toEqual({ kind: 'text', text: 'hi' });
    expect(partFromV1({ raw: 'dGNr', filename: 'o.txt', mediaType: 'text/plain', metadata: { a: 1 } })).toEqual({
      kind: 'file',
      file: { bytes: 'dGNr', name: 'o.txt', mimeType: 'text/plain' },
      metadata: { a: 1 },
    });
    expect(partFromV1({ url: 'https://x/o.txt' })).toEqual({ kind: 'file', file: { uri: 'https://x/o.txt' } });
    expect(partFromV1({ data: { key: 'value' } })).toEqual({ kind: 'data', data: { key: 'value' } });
  });

  it('wraps non-object data as {value} with the compat flag, and the flag round-trips', () => {
    const out = partFromV1({ data: [1, 'two'] });
    expect(out).toEqual({ kind: 'data', data: { value: [1, 'two'] }, metadata: { [DATA_PART_COMPAT_KEY]: true } });
    expect(partToV1(out, 'p')).toEqual({ data: [1, 'two'] });
  });

  it('drops mediaType and filename of a text part (v0.3 has no place for them)', () => {
    expect(partFromV1({ text: 'a', mediaType: 'text/markdown' })).toEqual({ kind: 'text', text: 'a' });
  });
});

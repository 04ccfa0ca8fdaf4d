/**
 * The RFC 4180 escaper: plain fields as they are, quoting exactly when a comma, quote, CR or LF is
 * in the field (§2.6), quotes doubled (§2.7), CRLF between records (§2.1), and the formula guard.
 */
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord, spreadsheetSafe } from '../../../src/bindings/management/csv.js';

describe('csvField', () => {
  it('leaves a plain field, a number and an empty value unquoted', () => {
    expect(csvField('echo')).toBe('echo');
    expect(csvField(0.25)).toBe('0.25');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField('with space')).toBe('with space');
  });

  it('quotes a field with a comma, CR or LF', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });

  it('doubles the quotes of a field that has them, and quotes it', () => {
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('"')).toBe('""""');
  });
});

describe('csvRecord', () => {
  it('joins fields with commas and ends the record with CRLF', () => {
    expect(csvRecord(['a', 1, null, 'x,y'])).toBe('a,1,,"x,y"\r\n');
  });
});

describe('spreadsheetSafe', () => {
  it('prefixes a quote to text a spreadsheet would run as a formula, and nothing else', () => {
    for (const t of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(spreadsheetSafe(t)).toBe(`'${t}`);
    expect(spreadsheetSafe('alice')).toBe('alice');
    expect(spreadsheetSafe('a=b')).toBe('a=b');
    expect(spreadsheetSafe(null)).toBeNull();
  });
});

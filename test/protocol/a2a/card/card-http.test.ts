import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildAgentCard } from '../../../../src/protocol/a2a/card/build-card.js';
import { cardRepresentation, conditionalCardResponse, parseHttpDate } from '../../../../src/protocol/a2a/card/card-http.js';
import type { AgentCard } from '../../../../src/protocol/a2a/types.js';
import { buildOptions, richSpec } from './fixtures.js';

const MODIFIED = new Date(Date.UTC(2026, 4, 28, 12, 30, 15, 999));
const cache = { maxAgeSeconds: 300 };

function card(): AgentCard {
  return buildAgentCard(richSpec(), buildOptions());
}

describe('cardRepresentation', () => {
  it('serializes the card and derives a strong, quoted sha-256 ETag from the body', () => {
    const c = card();
    const rep = cardRepresentation(c, { modifiedAt: MODIFIED });
    expect(JSON.parse(rep.body)).toEqual(c);
    expect(rep.etag).toBe(`"${createHash('sha256').update(rep.body).digest('base64url')}"`);
    expect(rep.etag.startsWith('W/')).toBe(false);
  });

  it('formats Last-Modified as an IMF-fixdate with whole seconds', () => {
    expect(cardRepresentation(card(), { modifiedAt: MODIFIED }).lastModified).toBe('Thu, 28 May 2026 12:30:15 GMT');
  });

  it('is computed once per card object', () => {
    const c = card();
    const first = cardRepresentation(c, { modifiedAt: MODIFIED });
    expect(cardRepresentation(c, { modifiedAt: new Date() })).toBe(first);
  });

  it('gives equal cards the same ETag and a changed card a different one', () => {
    const a = cardRepresentation(card());
    const b = cardRepresentation(card());
    const changed = cardRepresentation({ ...card(), version: '9.9.9' });
    expect(b.etag).toBe(a.etag);
    expect(changed.etag).not.toBe(a.etag);
  });
});

describe('conditionalCardResponse', () => {
  const rep = cardRepresentation(card(), { modifiedAt: MODIFIED });

  it('answers an unconditional request with 200, the body, JSON content type and validators', () => {
    const res = conditionalCardResponse({}, rep, cache);
    expect(res).toEqual({
      status: 200,
      headers: {
        'Content-Type': 'application/json',
        'Cache-Control': 'public, max-age=300',
        ETag: rep.etag,
        'Last-Modified': rep.lastModified,
      },
      body: rep.body,
    });
  });

  it('marks the extended card private', () => {
    expect(conditionalCardResponse({}, rep, { maxAgeSeconds: 60, cacheScope: 'private' }).headers['Cache-Control']).toBe('private, max-age=60');
  });

  it('adds Vary when asked', () => {
    expect(conditionalCardResponse({}, rep, { ...cache, vary: ['A2A-Version', 'Authorization'] }).headers.Vary).toBe('A2A-Version, Authorization');
  });

  it('answers 304 without body when If-None-Match holds the current ETag, keeping the validators', () => {
    const res = conditionalCardResponse({ 'if-none-match': rep.etag }, rep, cache);
    expect(res.status).toBe(304);
    expect(res.body).toBeUndefined();
    expect(res.headers).toEqual({ 'Cache-Control': 'public, max-age=300', ETag: rep.etag, 'Last-Modified': rep.lastModified });
  });

  it('matches If-None-Match by weak comparison, within a list, and for *', () => {
    for (const value of [`W/${rep.etag}`, `"other", ${rep.etag}`, `"a,b",W/${rep.etag}`, '*']) {
      expect(conditionalCardResponse({ 'if-none-match': value }, rep, cache).status, value).toBe(304);
    }
  });

  it('answers 200 when no entity-tag in If-None-Match matches', () => {
    for (const value of ['"other"', 'W/"other", "another"', rep.etag.slice(1, -1), 'garbage']) {
      expect(conditionalCardResponse({ 'if-none-match': value }, rep, cache).status, value).toBe(200);
    }
  });

  it('reads headers case-insensitively from a record, from repeated header lines, and from a fetch Headers', () => {
    expect(conditionalCardResponse({ 'If-None-Match': rep.etag }, rep, cache).status).toBe(304);
    expect(conditionalCardResponse({ 'if-none-match': ['"x"', rep.etag] }, rep, cache).status).toBe(304);
    expect(conditionalCardResponse(new Headers({ 'If-None-Match': rep.etag }), rep, cache).status).toBe(304);
  });

  it('answers 304 when If-Modified-Since is at or after Last-Modified', () => {
    for (const value of [rep.lastModified, 'Thu, 28 May 2026 13:00:00 GMT']) {
      expect(conditionalCardResponse({ 'if-modified-since': value }, rep, cache).status, value).toBe(304);
    }
  });

  it('answers 200 when If-Modified-Since is before Last-Modified or not an HTTP-date', () => {
    for (const value of ['Thu, 28 May 2026 12:30:14 GMT', '2026-06-01T00:00:00Z', 'yesterday']) {
      expect(conditionalCardResponse({ 'if-modified-since': value }, rep, cache).status, value).toBe(200);
    }
  });

  it('ignores If-Modified-Since when If-None-Match is present (RFC 9110 §13.2.2)', () => {
    const res = conditionalCardResponse({ 'if-none-match': '"stale"', 'if-modified-since': 'Fri, 29 May 2026 00:00:00 GMT' }, rep, cache);
    expect(res.status).toBe(200);
  });

  it('answers 200 with the new body once the card changed, even to a client holding the old validators', () => {
    const next = cardRepresentation({ ...card(), version: '2.4.0' }, { modifiedAt: new Date(MODIFIED.getTime() + 60_000) });
    const res = conditionalCardResponse({ 'if-none-match': rep.etag }, next, cache);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body!).version).toBe('2.4.0');
    const byDate = conditionalCardResponse({ 'if-modified-since': rep.lastModified }, next, cache);
    expect(byDate.status).toBe(200);
  });

  it('rejects a max-age that is not a non-negative integer', () => {
    expect(() => conditionalCardResponse({}, rep, { maxAgeSeconds: -1 })).toThrow(RangeError);
    expect(() => conditionalCardResponse({}, rep, { maxAgeSeconds: 1.5 })).toThrow(RangeError);
  });
});

describe('parseHttpDate', () => {
  it('accepts the three HTTP-date forms of RFC 9110 §5.6.7', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(expected);
  });

  it('rejects anything else', () => {
    for (const v of ['', '1994-11-06T08:49:37Z', 'Sun, 06 Nov 1994 08:49:37 UTC', 'Sun, 06 Foo 1994 08:49:37 GMT']) {
      expect(parseHttpDate(v), v).toBeUndefined();
    }
  });
});

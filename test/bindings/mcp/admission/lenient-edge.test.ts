import { describe, expect, it } from 'vitest';
import { InFlightCalls } from '../../../../src/bindings/mcp/tools/in-flight-calls.js';
import { normaliseAccept, reconcileVersionHeader } from '../../../../src/bindings/mcp/admission/lenient-edge.js';

const modernBody = (v = '2026-07-28') => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': v } } });
const legacyBody = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'chatgpt' } } } };

describe('lenient edge: Accept', () => {
  it('keeps an Accept that lists both types', () => {
    expect(normaliseAccept('application/json, text/event-stream')).toEqual({ value: 'application/json, text/event-stream' });
  });
  it.each([
    [undefined, 'missing'],
    ['*/*', 'wildcard'],
    ['application/json', 'single media type'],
    ['text/event-stream', 'single media type'],
  ])('widens %s to both types and says why', (accept, reason) => {
    const r = normaliseAccept(accept);
    expect(r.value).toBe('application/json, text/event-stream');
    expect(r.correction?.reason).toBe(reason);
  });
});

describe('lenient edge: MCP-Protocol-Version', () => {
  it('aligns a disagreeing header to a modern _meta version', () => {
    const r = reconcileVersionHeader('2025-11-25', modernBody());
    expect(r.value).toBe('2026-07-28');
    expect(r.correction?.reason).toBe('disagrees with _meta');
  });
  it('adds the header when a modern request lacks it', () => {
    expect(reconcileVersionHeader(undefined, modernBody()).value).toBe('2026-07-28');
  });
  it('drops a modern header on a legacy initialize (era is chosen by _meta only, not clientInfo)', () => {
    const r = reconcileVersionHeader('2026-07-28', { ...legacyBody, method: 'initialize' });
    expect(r.value).toBeUndefined();
    expect(r.correction?.reason).toBe('modern version without _meta');
  });
  it('keeps a modern header on any other request without the envelope, so the SDK answers 400 -32602 (2026-07-28 MUST)', () => {
    expect(reconcileVersionHeader('2026-07-28', legacyBody)).toEqual({ value: '2026-07-28' });
  });
  it('drops an unknown header, keeps a legacy one', () => {
    expect(reconcileVersionHeader('1999-01-01', legacyBody).value).toBeUndefined();
    expect(reconcileVersionHeader('2025-06-18', legacyBody)).toEqual({ value: '2025-06-18' });
  });
  it('leaves an unsupported envelope version to the SDK (-32022)', () => {
    expect(reconcileVersionHeader('2099-01-01', modernBody('2099-01-01'))).toEqual({ value: '2099-01-01' });
  });
});

describe('in-flight calls (legacy notifications/cancelled)', () => {
  it('cancels the one matching call of the subject', () => {
    const calls = new InFlightCalls();
    const a = new AbortController();
    const untrack = calls.track('alice', 7, a);
    expect(calls.cancel('bob', 7)).toBe(false);
    expect(calls.cancel('alice', '7')).toBe(false);
    expect(calls.cancel('alice', 7, 'user stopped')).toBe(true);
    expect(a.signal.aborted).toBe(true);
    untrack();
    expect(calls.size).toBe(0);
  });
  it('cancels nothing when two calls share subject and request id', () => {
    const calls = new InFlightCalls();
    const a = new AbortController();
    const b = new AbortController();
    calls.track('anonymous', 1, a);
    calls.track('anonymous', 1, b);
    expect(calls.cancel('anonymous', 1)).toBe(false);
    expect(a.signal.aborted || b.signal.aborted).toBe(false);
  });
  it('cancels the call left once the other sharing its key has ended, and forgets the key when both have', () => {
    const calls = new InFlightCalls();
    const a = new AbortController();
    const b = new AbortController();
    const untrackA = calls.track('anonymous', 1, a);
    const untrackB = calls.track('anonymous', 1, b);
    untrackA();
    untrackA();
    expect(calls.cancel('anonymous', 1)).toBe(true);
    expect(a.signal.aborted).toBe(false);
    expect(b.signal.aborted).toBe(true);
    untrackB();
    expect(calls.size).toBe(0);
    expect(calls.cancel('anonymous', 1)).toBe(false);
  });
});

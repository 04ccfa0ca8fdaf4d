/**
 * The sign-in throttle slows guessing without letting one address lock everyone out (issue 19):
 * the delay grows per username and address pair, an address has its own larger budget, and the
 * address is the forwarded one only behind a proxy the server was told to trust.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressOf } from '../../../src/auth/oauth/client-address.js';
import { LoginThrottle } from '../../../src/auth/oauth/login-throttle.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('LoginThrottle', () => {
  it('failures for an account from one address do not lock the account from another address', () => {
    const c = clock();
    const t = new LoginThrottle(c.now);
    for (let i = 0; i < 5; i++) t.failed('alice', '203.0.113.7');
    expect(t.retryAfterSeconds('alice', '203.0.113.7')).toBeGreaterThan(0);
    expect(t.retryAfterSeconds('alice', '198.51.100.2')).toBe(0);
  });

  it('failures from one address for some accounts do not block that address for other accounts', () => {
    const t = new LoginThrottle(clock().now);
    for (let i = 0; i < 5; i++) t.failed(`user${i}`, '192.0.2.1');
    expect(t.retryAfterSeconds('bob', '192.0.2.1')).toBe(0);
  });

  it('makes a pair wait longer after each further failure, up to 15 minutes', () => {
    const c = clock();
    const t = new LoginThrottle(c.now);
    for (let i = 0; i < 4; i++) t.failed('alice', '192.0.2.1');
    expect(t.retryAfterSeconds('alice', '192.0.2.1')).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      t.failed('alice', '192.0.2.1');
      const w = t.retryAfterSeconds('alice', '192.0.2.1');
      waits.push(w);
      c.advance(w * 1000);
      expect(t.retryAfterSeconds('alice', '192.0.2.1')).toBe(0);
    }
    expect(waits.slice(0, 4)).toEqual([2, 4, 8, 16]);
    expect(Math.max(...waits)).toBe(900);
  });

  it('gives an address a budget of 100 failures per 15 minutes over all accounts', () => {
    const c = clock();
    const t = new LoginThrottle(c.now);
    for (let i = 0; i < 100; i++) t.failed(`spray${i}`, '192.0.2.9');
    expect(t.retryAfterSeconds('fresh', '192.0.2.9')).toBe(900);
    expect(t.retryAfterSeconds('fresh', '192.0.2.10')).toBe(0);
    c.advance(15 * 60_000);
    expect(t.retryAfterSeconds('fresh', '192.0.2.9')).toBe(0);
  });

  it('a success clears the pair', () => {
    const t = new LoginThrottle(clock().now);
    for (let i = 0; i < 5; i++) t.failed('alice', '192.0.2.1');
    t.succeeded('alice', '192.0.2.1');
    expect(t.retryAfterSeconds('alice', '192.0.2.1')).toBe(0);
  });
});

describe('client address for the throttle', () => {
  const req = (remoteAddress: string, xff?: string) => ({ socket: { remoteAddress }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddressOf([])(req('198.51.100.4', '10.9.9.9'))).toBe('198.51.100.4');
    expect(clientAddressOf(['10.0.0.2'])(req('198.51.100.4', '10.9.9.9'))).toBe('198.51.100.4');
  });

  it('takes the rightmost untrusted address behind trusted proxies, never what the client wrote', () => {
    const of = clientAddressOf(['10.0.0.2', '10.0.0.3']);
    // the client wrote 1.2.3.4; the outer proxy 10.0.0.3 appended the client's real address
    expect(of(req('::ffff:10.0.0.2', '1.2.3.4, 203.0.113.5, 10.0.0.3'))).toBe('203.0.113.5');
    expect(of(req('10.0.0.2', 'not-an-address'))).toBe('10.0.0.2');
    expect(of(req('10.0.0.2'))).toBe('10.0.0.2');
  });
});

import { describe, expect, it } from 'vitest';
import { hostOriginCheck, isMcpMethod } from '../../../../src/bindings/mcp/admission/edge-checks.js';

describe('MCP edge checks', () => {
  const loopback = hostOriginCheck('http://agents.example:8080', '127.0.0.1');

  it('on a loopback bind, admits loopback and the public host, refuses any other Host', () => {
    for (const host of ['localhost:8080', '127.0.0.1:9', '127.3.2.1', '[::1]:8080', 'agents.example:8080']) expect(loopback({ host })).toBeUndefined();
    expect(loopback({ host: 'evil.example:8080' })).toBe('Host not allowed');
    expect(loopback({})).toBe('Host not allowed');
  });

  it('on a loopback bind, admits loopback and the public origin, refuses any other Origin and "null"', () => {
    expect(loopback({ host: 'localhost', origin: 'http://localhost:3000' })).toBeUndefined();
    expect(loopback({ host: 'localhost', origin: 'http://agents.example:8080' })).toBeUndefined();
    expect(loopback({ host: 'localhost', origin: 'https://evil.example' })).toBe('Origin not allowed');
    expect(loopback({ host: 'localhost', origin: 'null' })).toBe('Origin not allowed');
  });

  it('checks nothing on a non-loopback bind', () => {
    const open = hostOriginCheck('http://agents.example', '0.0.0.0');
    expect(open({ host: 'evil.example', origin: 'null' })).toBeUndefined();
  });

  it('knows the Streamable HTTP methods', () => {
    expect(['GET', 'POST', 'DELETE'].every(isMcpMethod)).toBe(true);
    expect(isMcpMethod('PUT')).toBe(false);
    expect(isMcpMethod(undefined)).toBe(false);
  });
});

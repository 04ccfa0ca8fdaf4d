import { describe, expect, it } from 'vitest';
import { pathPattern } from '../../src/edge/call-usage.js';

describe('pathPattern (the operation of a call no face named)', () => {
  it('masks ids and keeps route words', () => {
    expect(pathPattern('/oauth/interaction/Vx3k9QpZ2mN8')).toBe('/oauth/interaction/:id');
    expect(pathPattern('/oauth/token')).toBe('/oauth/token');
    expect(pathPattern('/a2a/echo/tasks/01a20db7-c651-7029-a977-8cebde5b94e3')).toBe('/a2a/echo/tasks/:id');
    expect(pathPattern('/.well-known/oauth-authorization-server')).toBe('/.well-known/oauth-authorization-server');
  });

  it('bounds the length: deep paths are cut, long words masked', () => {
    expect(pathPattern('/a/b/c/d/e/f/g/h/i/j').split('/')).toHaveLength(8);
    expect(pathPattern(`/x/${'a'.repeat(50)}`)).toBe('/x/:id');
  });
});

import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrls, urlOriginAndPath } from '../../src/config/redact-url.js';

describe('redact-url', () => {
  it('masks the userinfo password and keeps the rest', () => {
    expect(redactUrl('postgres://app:s3cret@db.internal:5432/agentport')).toBe('postgres://app:***@db.internal:5432/agentport');
    expect(redactUrl('redis://cache:6379/0')).toBe('redis://cache:6379/0');
  });

  it('answers with the caller’s words for something that is no URL', () => {
    expect(redactUrl('not a url')).toBe('(unparsable URL)');
    expect(redactUrl('not a url', 'the configured URL')).toBe('the configured URL');
  });

  it('keeps only origin and path when the query may carry a token', () => {
    expect(urlOriginAndPath('https://u:p@mcp.example/v1/mcp?key=abc')).toBe('https://mcp.example/v1/mcp');
    expect(urlOriginAndPath('::')).toBe('(configured URL)');
  });

  it('masks every URL password in a free text', () => {
    expect(redactUrls('url redis://:pw@h:6379 and postgres://a:b@c/d')).toBe('url redis://:***@h:6379 and postgres://a:***@c/d');
  });
});

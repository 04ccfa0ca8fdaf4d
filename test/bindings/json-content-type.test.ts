import { describe, expect, it } from 'vitest';
import { isJsonContentType } from '../../src/bindings/a2a-rest/rest-binding.js';

describe('isJsonContentType', () => {
  it('takes application/json and application/a2a+json as they are usually sent', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/a2a+json')).toBe(true);
  });

  it('takes them in any case, with parameters and spaces', () => {
    for (const ct of ['Application/JSON', 'application/json; charset=utf-8', ' application/json ', 'APPLICATION/A2A+JSON;charset=UTF-8', 'application/json;']) {
      expect(isJsonContentType(ct), ct).toBe(true);
    }
  });

  it('refuses every other type, an absent header and an empty one', () => {
    for (const ct of [undefined, '', 'text/plain', 'application/jsonx', 'application/json-patch+json', 'application/x-www-form-urlencoded', 'application/a2a+json2', 'json', 'text/json; application/json']) {
      expect(isJsonContentType(ct), String(ct)).toBe(false);
    }
  });
});

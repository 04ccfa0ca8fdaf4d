import { describe, expect, it } from 'vitest';
import { activateExtensions, negotiateVersion, parseExtensions } from '../../../src/bindings/a2a-grpc/service-parameters.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';

const kindOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof A2AError ? err.kind : 'not an A2AError';
  }
};

describe('a2a-version negotiation', () => {
  it.each(['1.0', '1.0.0', '1.0.17', ' 1.0 ', '01.00'])('accepts %j as 1.0', (v) => {
    expect(kindOf(() => negotiateVersion(v))).toBeUndefined();
  });

  it.each([undefined, '', '   ', '0.3', '1.1', '2.0', '1', '1.0.x', 'v1.0'])('rejects %j with VersionNotSupported', (v) => {
    expect(kindOf(() => negotiateVersion(v))).toBe('VersionNotSupported');
  });

  it('reports an absent version as the implied 0.3', () => {
    // Asserted outside the catch: a negotiation that wrongly succeeded must fail this test too.
    let thrown: unknown;
    try {
      negotiateVersion(undefined);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(A2AError);
    expect((thrown as A2AError).metadata).toStrictEqual({ requestedVersion: '0.3', supportedVersions: '1.0' });
  });
});

describe('a2a-extensions', () => {
  it('splits comma-separated values over several entries, trimming and de-duplicating', () => {
    expect(parseExtensions(['urn:a, urn:b', ' urn:c ,,urn:a', ''])).toEqual(['urn:a', 'urn:b', 'urn:c']);
  });

  it('activates requested ∩ declared, in request order', () => {
    expect(activateExtensions({ supported: ['urn:a', 'urn:b'], required: [] }, ['urn:x', 'urn:b', 'urn:a'])).toEqual(['urn:b', 'urn:a']);
  });

  it('an agent that declares nothing activates nothing', () => {
    expect(activateExtensions(undefined, ['urn:a'])).toEqual([]);
  });

  it('a required extension that was not requested is ExtensionSupportRequired', () => {
    expect(kindOf(() => activateExtensions({ supported: ['urn:a'], required: ['urn:r'] }, ['urn:a']))).toBe('ExtensionSupportRequired');
  });
});

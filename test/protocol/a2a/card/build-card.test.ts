import { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { AgentCardSpec } from '../../../../src/protocol/a2a/card/agent-card-spec.js';
import { AgentCardSpecError, buildAgentCard } from '../../../../src/protocol/a2a/card/build-card.js';
import { buildOptions, richSpec } from './fixtures.js';

/** JSON paths holding undefined, "", [] or {}. */
function empties(value: unknown, path = '$'): string[] {
  if (value === undefined || value === '') return [path];
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((v, i) => empties(v, `${path}[${i}]`));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => empties(v, `${path}.${k}`));
  }
  return [];
}

function minimalSpec(): AgentCardSpec {
  return { name: 'Echo', description: 'Echoes text.', skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['demo'] }] };
}

describe('buildAgentCard defaults', () => {
  it('fills version 1.0.0, text/plain modes and explicit capability booleans', () => {
    const card = buildAgentCard(minimalSpec(), buildOptions({ securitySchemes: undefined, securityRequirements: undefined, extendedCardEnabled: false }));
    expect(card.version).toBe('1.0.0');
    expect(card.defaultInputModes).toEqual(['text/plain']);
    expect(card.defaultOutputModes).toEqual(['text/plain']);
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false, extendedAgentCard: false });
  });

  it('takes streaming/pushNotifications from the spec and extendedAgentCard from the options', () => {
    const spec = { ...minimalSpec(), capabilities: { streaming: true, pushNotifications: true } };
    const card = buildAgentCard(spec, buildOptions({ extendedCardEnabled: true }));
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true });
  });

  it('keeps declared values over defaults', () => {
    const card = buildAgentCard(richSpec(), buildOptions());
    expect(card.version).toBe('2.3.0');
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['text/plain']);
    expect(card.provider).toEqual({ organization: 'Example Org', url: 'https://example.org' });
  });

  it('puts the interfaces in the given order and omits an empty tenant', () => {
    const card = buildAgentCard(
      minimalSpec(),
      buildOptions({
        interfaces: [
          { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
          { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't1' },
        ],
      }),
    );
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', tenant: 't1', protocolVersion: '1.0' },
    ]);
  });
});

describe('buildAgentCard skill visibility', () => {
  it('hides extended skills from the public card', () => {
    const card = buildAgentCard(richSpec(), buildOptions({ extended: false }));
    expect(card.skills.map((s) => s.id)).toEqual(['plan']);
  });

  it('includes extended skills in the extended card, in declaration order', () => {
    const card = buildAgentCard(richSpec(), buildOptions({ extended: true }));
    expect(card.skills.map((s) => s.id)).toEqual(['plan', 'fleet']);
    expect(card.skills[1]!.securityRequirements).toEqual([{ schemes: { oauth: { list: ['fleet:write'] } } }]);
  });

  it('never emits the visibility member', () => {
    for (const extended of [false, true]) {
      const card = buildAgentCard(richSpec(), buildOptions({ extended }));
      for (const skill of card.skills) expect(skill).not.toHaveProperty('visibility');
    }
  });

  it('does not leak an extended skill through securityRequirements or other members of the public card', () => {
    const body = JSON.stringify(buildAgentCard(richSpec(), buildOptions({ extended: false })));
    expect(body).not.toContain('fleet"');
    expect(body).not.toContain('Fleet optimisation');
  });
});

describe('buildAgentCard output shape', () => {
  it('contains no undefined, empty strings, or empty optional arrays/objects', () => {
    const spec: AgentCardSpec = {
      name: 'Sparse',
      description: 'Declares empty optional values everywhere.',
      version: '',
      documentationUrl: '',
      iconUrl: '',
      capabilities: { extensions: [{ uri: 'urn:x', description: '', required: false, params: {} }] },
      defaultInputModes: [],
      defaultOutputModes: [''],
      skills: [{ id: 's', name: 'S', description: 'D', tags: ['t', ''], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    };
    const card = buildAgentCard(
      spec,
      buildOptions({
        securitySchemes: { key: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: '', description: '' } } },
        securityRequirements: [],
      }),
    );
    expect(empties(card)).toEqual([]);
    expect(card.capabilities.extensions).toEqual([{ uri: 'urn:x' }]);
    expect(card.securitySchemes).toEqual({ key: { httpAuthSecurityScheme: { scheme: 'bearer' } } });
    expect(card).not.toHaveProperty('securityRequirements');
  });

  it('allows empties only where the type or the proto requires the member (skills, tags, scope list)', () => {
    const spec: AgentCardSpec = {
      ...minimalSpec(),
      skills: [
        { id: 'a', name: 'A', description: 'A', tags: [], visibility: 'public' },
        { id: 'b', name: 'B', description: 'B', tags: ['x'], visibility: 'extended' },
      ],
    };
    const withScopeless = buildOptions({
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    });
    expect(empties(buildAgentCard(spec, withScopeless))).toEqual(['$.securityRequirements[0].schemes.bearer.list', '$.skills[0].tags']);
    expect(empties(buildAgentCard({ ...minimalSpec(), skills: [] }, buildOptions()))).toEqual(['$.skills']);
  });

  it('survives a JSON round trip unchanged (no undefined members)', () => {
    const card = buildAgentCard(richSpec(), buildOptions({ extended: true }));
    expect(JSON.parse(JSON.stringify(card))).toStrictEqual(card);
  });

  it('is a ProtoJSON AgentCard: the official SDK parses and re-serializes it to the same JSON', () => {
    const card = buildAgentCard(richSpec(), buildOptions({ extended: true }));
    expect(SdkAgentCard.toJSON(SdkAgentCard.fromJSON(card))).toEqual(card);
  });

  it('does not share arrays or objects with the spec it was built from', () => {
    const spec = richSpec();
    const card = buildAgentCard(spec, buildOptions({ extended: true }));
    card.skills[0]!.tags.push('mutated');
    card.capabilities.extensions![0]!.params!.precision = 1;
    expect(spec.skills[0]!.tags).toEqual(['maps', 'routing']);
    expect(spec.capabilities!.extensions![0]!.params).toEqual({ precision: 5 });
  });
});

describe('buildAgentCard validation', () => {
  const expectSpecError = (fn: () => unknown, field: string) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(AgentCardSpecError);
      expect((err as AgentCardSpecError).field).toBe(field);
      return;
    }
    throw new Error('expected AgentCardSpecError');
  };

  it('requires at least one interface', () => {
    expectSpecError(() => buildAgentCard(minimalSpec(), buildOptions({ interfaces: [] })), 'supportedInterfaces');
  });

  it('requires a non-empty name and description', () => {
    expectSpecError(() => buildAgentCard({ ...minimalSpec(), name: ' ' }, buildOptions()), 'name');
    expectSpecError(() => buildAgentCard({ ...minimalSpec(), description: '' }, buildOptions()), 'description');
  });

  it('rejects duplicate skill ids', () => {
    const skill = minimalSpec().skills[0]!;
    expectSpecError(() => buildAgentCard({ ...minimalSpec(), skills: [skill, { ...skill, visibility: 'extended' }] }, buildOptions()), 'skills[1].id');
  });

  it('rejects a security requirement on a scheme the card does not declare', () => {
    expectSpecError(() => buildAgentCard(minimalSpec(), buildOptions({ securityRequirements: [{ schemes: { missing: { list: [] } } }] })), 'securityRequirements[0].schemes.missing');
  });

  it('rejects a security scheme that is not exactly one of the v1.0 scheme kinds', () => {
    const bad = { both: { mtlsSecurityScheme: {}, apiKeySecurityScheme: { location: 'header', name: 'k' } } } as never;
    expectSpecError(() => buildAgentCard(minimalSpec(), buildOptions({ securitySchemes: bad, securityRequirements: [] })), 'securitySchemes.both');
  });
});

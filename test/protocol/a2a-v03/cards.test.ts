import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/protocol/a2a/types.js';
import { agentCardFromV1 } from '../../../src/protocol/a2a-v03/cards.js';

const card: AgentCard = {
  name: 'A',
  description: 'd',
  version: '1.0.0',
  supportedInterfaces: [
    { url: 'https://h/a2a/a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://h/a2a/a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'h:50051', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'a' },
  ],
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true, extensions: [{ uri: 'urn:x', required: false }] },
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT', description: 'b' } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://h/.well-known/openid-configuration' } },
    mtls: { mtlsSecurityScheme: {} },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { key: { list: ['read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'sd', tags: ['t'], securityRequirements: [{ schemes: { key: { list: ['x'] } } }] }],
  signatures: [{ protected: 'p', signature: 's' }],
};

describe('v0.3 agent card', () => {
  it('uses the JSON-RPC interface as url/preferredTransport and lists all interfaces', () => {
    const v03 = agentCardFromV1(card);
    expect(v03).toMatchObject({ protocolVersion: '0.3.0', url: 'https://h/a2a/a', preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true });
    expect(v03.additionalInterfaces).toEqual([
      { url: 'https://h/a2a/a', transport: 'JSONRPC' },
      { url: 'https://h/a2a/a', transport: 'HTTP+JSON' },
      { url: 'h:50051', transport: 'GRPC' },
    ]);
    expect(v03.capabilities).toEqual({ streaming: true, pushNotifications: false, extensions: [{ uri: 'urn:x', required: false }] });
  });

  it('turns oneof security schemes into type-keyed ones and requirements into {name: scopes}', () => {
    const v03 = agentCardFromV1(card);
    expect(v03.securitySchemes).toEqual({
      key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'b' },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://h/.well-known/openid-configuration' },
      mtls: { type: 'mutualTLS' },
    });
    expect(v03.security).toEqual([{ bearer: [] }, { key: ['read'] }]);
    expect(v03.skills[0]?.security).toEqual([{ key: ['x'] }]);
  });

  it('drops signatures, which cover the v1.0 JSON and cannot verify over this shape', () => {
    expect('signatures' in agentCardFromV1(card)).toBe(false);
  });
});

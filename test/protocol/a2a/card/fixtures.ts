import type { AgentCardSpec } from '../../../../src/protocol/a2a/card/agent-card-spec.js';
import type { BuildAgentCardOptions } from '../../../../src/protocol/a2a/card/build-card.js';

/** An agent declaring every card feature, with one skill reserved for the extended card. */
export function richSpec(): AgentCardSpec {
  return {
    name: 'Route Planner',
    description: 'Plans routes between places.',
    version: '2.3.0',
    provider: { organization: 'Example Org', url: 'https://example.org' },
    documentationUrl: 'https://example.org/docs',
    iconUrl: 'https://example.org/icon.png',
    capabilities: {
      streaming: true,
      extensions: [{ uri: 'https://example.org/ext/geo', description: 'Geo extension', required: true, params: { precision: 5 } }, { uri: 'https://example.org/ext/plain' }],
    },
    defaultInputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'plan',
        name: 'Plan route',
        description: 'Plans a route.',
        tags: ['maps', 'routing'],
        examples: ['From Paris to Berlin'],
        outputModes: ['application/json'],
        visibility: 'public',
      },
      {
        id: 'fleet',
        name: 'Fleet optimisation',
        description: 'Optimises a fleet of vehicles.',
        tags: ['fleet'],
        securityRequirements: [{ schemes: { oauth: { list: ['fleet:write'] } } }],
        visibility: 'extended',
      },
    ],
  };
}

export function buildOptions(overrides: Partial<BuildAgentCardOptions> = {}): BuildAgentCardOptions {
  return {
    interfaces: [
      { url: 'https://agents.example.org/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agents.example.org/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
    ],
    extended: false,
    extendedCardEnabled: true,
    securitySchemes: {
      oauth: {
        oauth2SecurityScheme: {
          description: 'OAuth 2.0',
          flows: {
            clientCredentials: { tokenUrl: 'https://auth.example.org/token', scopes: { 'fleet:write': 'Manage fleets' } },
          },
        },
      },
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'Static key' } },
    },
    securityRequirements: [{ schemes: { oauth: { list: ['fleet:write'] } } }, { schemes: { apiKey: { list: ['read'] } } }],
    ...overrides,
  };
}

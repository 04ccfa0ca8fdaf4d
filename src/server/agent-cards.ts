/**
 * Registers each configured agent with its public and extended cards: interfaces for every
 * binding (JSON-RPC first), capabilities from config, signed with the server's key when enabled.
 */
import type { AgentDefinition } from '../core/agents/agent-definition.js';
import type { AgentConfig, Config } from '../config/index.js';
import type { RegisteredAgent } from '../core/agents/agent-registry.js';
import type { KeyStore } from '../core/keys/key-store.js';
import { buildAgentCard } from '../protocol/a2a/card/build-card.js';
import { signAgentCard } from '../protocol/a2a/card/sign-card.js';
import type { AgentCard, AgentInterface, SecurityRequirement, SecurityScheme } from '../protocol/a2a/types.js';
import { headerlessCardOf, v03Interfaces } from '../bindings/a2a-legacy/v03/cards.js';
import { OAUTH_PATHS, oauthUrl } from '../auth/oauth-paths.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../core/authz/scopes.js';

export function agentBaseUrl(config: Config, agentId: string): string {
  return `${config.server.publicUrl}/a2a/${agentId}`;
}

export function agentInterfaces(config: Config, agentId: string): AgentInterface[] {
  const base = agentBaseUrl(config, agentId);
  const out: AgentInterface[] = [
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  if (config.server.grpc.enabled) {
    out.push({ url: config.server.grpc.publicUrl, protocolBinding: 'GRPC', tenant: agentId, protocolVersion: '1.0' });
  }
  // Listed last, so clients that take the first match get v1.0.
  out.push(...v03Interfaces(config, agentId, base));
  return out;
}

/**
 * Whether a caller could authenticate at all. With authentication on, stored API keys always can
 * (the first start creates one); with it off, only credentials the config names are checked.
 */
export function credentialsExist(config: Config): boolean {
  const a = config.auth;
  return a.mode === 'required' || a.apiKeys.length > 0 || (a.issuers?.length ?? 0) > 0 || a.sharedSecret !== undefined;
}

/** The scopes every A2A operation of an agent needs between them (src/core/authz). */
const AGENT_SCOPES = [SCOPES.discover, SCOPES.publish];

/**
 * What the card declares is what the server enforces (src/core/authz): every scheme a caller can
 * use, generated from the same config the policy reads. OAuth flows are a proto `oneof`, so the
 * authorization-code and client-credentials flows are two schemes. None at all in mode none.
 */
export function securityOf(config: Config): { schemes?: Record<string, SecurityScheme>; requirements?: SecurityRequirement[] } {
  if (config.auth.mode === 'none') return {};
  const base = config.server.publicUrl;
  const schemes: Record<string, SecurityScheme> = {
    apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'An Agentport API key (agentport keys create, POST /api/v1/keys)' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'An Agentport API key or access token (JWT) as a bearer token' } },
  };
  if (config.auth.oauth.enabled) {
    // Skills' own scopes are requested like any other, so the flows list them too.
    const scopes: Record<string, string> = { ...SCOPE_DESCRIPTIONS };
    for (const a of config.agents) {
      for (const [skillId, sk] of Object.entries(a.skills)) for (const sc of sk.scopes ?? []) scopes[sc] ??= `Use the skill '${skillId}' of agent '${a.id}'`;
    }
    const metadata = { oauth2MetadataUrl: oauthUrl(base, OAUTH_PATHS.authorizationServerMetadata) };
    schemes.oauth2 = {
      oauth2SecurityScheme: {
        description: 'Agentport OAuth 2.1: authorization code with PKCE (S256)',
        flows: { authorizationCode: { authorizationUrl: oauthUrl(base, OAUTH_PATHS.authorize), tokenUrl: oauthUrl(base, OAUTH_PATHS.token), refreshUrl: oauthUrl(base, OAUTH_PATHS.token), scopes, pkceRequired: true } },
        ...metadata,
      },
    };
    schemes.oauth2ClientCredentials = {
      oauth2SecurityScheme: {
        description: 'Agentport OAuth 2.1: client credentials, for machine clients',
        flows: { clientCredentials: { tokenUrl: oauthUrl(base, OAUTH_PATHS.token), scopes } },
        ...metadata,
      },
    };
  }
  return { schemes, requirements: requirementsFor(schemes, AGENT_SCOPES) };
}

/** One alternative per scheme (any one suffices), each naming the scopes needed. */
function requirementsFor(schemes: Record<string, SecurityScheme>, scopes: readonly string[]): SecurityRequirement[] {
  return Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [...scopes] } } }));
}

/** A skill that needs scopes of its own declares them: a2a:publish plus the skill's (what a send to it needs). */
function skillRequirements(config: Config, agentId: string, skillId: string, schemes: Record<string, SecurityScheme> | undefined): SecurityRequirement[] | undefined {
  const extra = config.agents.find((a) => a.id === agentId)?.skills[skillId]?.scopes;
  if (!schemes || !extra?.length) return undefined;
  return requirementsFor(schemes, [...new Set([SCOPES.publish, ...extra])]);
}

export async function registerAgent(config: Config, agentConfig: AgentConfig, def: AgentDefinition, keys: KeyStore | undefined): Promise<RegisteredAgent> {
  const sec = securityOf(config);
  const spec = {
    ...def.card,
    ...stripUndefined(agentConfig.card),
    capabilities: {
      ...def.card.capabilities,
      // Every agent emits events (a status, an artifact, a reply), and a stream carries any of
      // them, so streaming is on unless the card or the config turns it off.
      streaming: agentConfig.streaming ?? def.card.capabilities?.streaming ?? true,
      ...(agentConfig.pushNotifications !== undefined ? { pushNotifications: agentConfig.pushNotifications } : {}),
      extensions: [
        ...(def.card.capabilities?.extensions ?? []),
        ...agentConfig.requiredExtensions.filter((uri) => !(def.card.capabilities?.extensions ?? []).some((e) => e.uri === uri)).map((uri) => ({ uri, required: true })),
      ].map((e) => (agentConfig.requiredExtensions.includes(e.uri) ? { ...e, required: true } : e)),
    },
    skills: def.card.skills.map((s) => {
      const requirements = skillRequirements(config, agentConfig.id, s.id, sec.schemes);
      return { ...s, visibility: agentConfig.skills[s.id]?.visibility ?? s.visibility ?? 'public', ...(requirements ? { securityRequirements: requirements } : {}) };
    }),
  };
  if (spec.capabilities.extensions.length === 0) delete (spec.capabilities as { extensions?: unknown }).extensions;
  const interfaces = agentInterfaces(config, agentConfig.id);
  // The extended card needs a way to authenticate for it (spec §13.3); without any credential
  // kind it is offered only when anonymous access was chosen explicitly.
  const extendedCard = agentConfig.extendedCard && (credentialsExist(config) || config.auth.anonymousExtendedCard);
  const build = (extended: boolean) =>
    buildAgentCard(spec, {
      interfaces,
      extended,
      extendedCardEnabled: extendedCard,
      securitySchemes: sec.schemes,
      securityRequirements: sec.requirements,
    });
  const sign = async (card: AgentCard) => (config.cards.sign && keys ? signAgentCard(card, await keys.getSigningKey(), { jku: `${config.server.publicUrl}/.well-known/jwks.json` }) : card);
  const publicCard = await sign(build(false));
  const headerlessCard = config.cards.v03Fields ? await headerlessCardOf(publicCard, sign) : undefined;
  const extendedAgentCard = extendedCard ? await sign(build(true)) : undefined;
  const extensions = spec.capabilities.extensions ?? [];
  return {
    id: agentConfig.id,
    baseUrl: agentBaseUrl(config, agentConfig.id),
    definition: def,
    streaming: spec.capabilities.streaming === true,
    pushNotifications: spec.capabilities.pushNotifications === true,
    extendedCard,
    extendedCardRequiresAuth: !config.auth.anonymousExtendedCard,
    supportedExtensions: extensions.map((e) => e.uri),
    requiredExtensions: extensions.filter((e) => e.required).map((e) => e.uri),
    publicCard,
    ...(headerlessCard ? { headerlessCard } : {}),
    extendedAgentCard,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

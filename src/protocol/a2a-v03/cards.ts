/**
 * The agent card in its v0.3.0 shape, for `agent/getAuthenticatedExtendedCard`: one `url` +
 * `preferredTransport` + `additionalInterfaces` instead of `supportedInterfaces`, `type`-keyed
 * security schemes, and `security` as `{name: scopes}` maps.
 */
import type { AgentCard, AgentInterface, JsonObject, SecurityRequirement, SecurityScheme } from '../a2a/types.js';

export const V03_PROTOCOL_VERSION = '0.3.0';

export type V03SecurityScheme =
  | { type: 'apiKey'; in: 'query' | 'header' | 'cookie'; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'oauth2'; flows: JsonObject; oauth2MetadataUrl?: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mutualTLS'; description?: string };

export interface V03AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: string;
  additionalInterfaces?: Array<{ url: string; transport: string }>;
  version: string;
  provider?: { url: string; organization: string };
  documentationUrl?: string;
  iconUrl?: string;
  capabilities: { streaming?: boolean; pushNotifications?: boolean; extensions?: JsonObject[] };
  securitySchemes?: Record<string, V03SecurityScheme>;
  security?: Array<Record<string, string[]>>;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: Array<{
    id: string;
    name: string;
    description: string;
    tags: string[];
    examples?: string[];
    inputModes?: string[];
    outputModes?: string[];
    security?: Array<Record<string, string[]>>;
  }>;
  supportsAuthenticatedExtendedCard?: boolean;
}

export const isV03Interface = (i: AgentInterface): boolean => i.protocolVersion === '0.3' || i.protocolVersion.startsWith('0.3.');

/** A v0.3 interface if the card declares one, else the first JSON-RPC one, else the first. */
function mainInterface(interfaces: AgentInterface[]): AgentInterface | undefined {
  return interfaces.find((i) => i.protocolBinding === 'JSONRPC' && isV03Interface(i)) ?? interfaces.find((i) => i.protocolBinding === 'JSONRPC') ?? interfaces[0];
}

export function securityFromV1(reqs: SecurityRequirement[]): Array<Record<string, string[]>> {
  return reqs.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([name, scopes]) => [name, [...(scopes.list ?? [])]])));
}

export function securitySchemeFromV1(s: SecurityScheme): V03SecurityScheme {
  const described = <T extends object>(x: T, d: string | undefined): T => (d ? { ...x, description: d } : x);
  if ('apiKeySecurityScheme' in s) {
    const k = s.apiKeySecurityScheme;
    return described({ type: 'apiKey', in: k.location, name: k.name }, k.description);
  }
  if ('httpAuthSecurityScheme' in s) {
    const h = s.httpAuthSecurityScheme;
    return described({ type: 'http', scheme: h.scheme, ...(h.bearerFormat ? { bearerFormat: h.bearerFormat } : {}) }, h.description);
  }
  if ('oauth2SecurityScheme' in s) {
    const o = s.oauth2SecurityScheme;
    return described({ type: 'oauth2', flows: o.flows, ...(o.oauth2MetadataUrl ? { oauth2MetadataUrl: o.oauth2MetadataUrl } : {}) }, o.description);
  }
  if ('openIdConnectSecurityScheme' in s) {
    const o = s.openIdConnectSecurityScheme;
    return described({ type: 'openIdConnect', openIdConnectUrl: o.openIdConnectUrl }, o.description);
  }
  return described({ type: 'mutualTLS' }, s.mtlsSecurityScheme.description);
}

/**
 * Lossy: interface `tenant`s and `signatures` are dropped (the signatures cover the v1.0 JSON,
 * so they could never verify over this shape).
 */
export function agentCardFromV1(c: AgentCard): V03AgentCard {
  const main = mainInterface(c.supportedInterfaces);
  const out: V03AgentCard = {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: c.name,
    description: c.description,
    url: main?.url ?? '',
    preferredTransport: main?.protocolBinding ?? 'JSONRPC',
    version: c.version,
    capabilities: {
      ...(c.capabilities.streaming !== undefined ? { streaming: c.capabilities.streaming } : {}),
      ...(c.capabilities.pushNotifications !== undefined ? { pushNotifications: c.capabilities.pushNotifications } : {}),
      ...(c.capabilities.extensions?.length ? { extensions: c.capabilities.extensions.map((e) => ({ ...e }) as JsonObject) } : {}),
    },
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
      ...(s.securityRequirements ? { security: securityFromV1(s.securityRequirements) } : {}),
    })),
  };
  // A card that declares v0.3 interfaces offers exactly those to v0.3 clients; the v1.0 ones
  // speak a wire they cannot read.
  const v03 = c.supportedInterfaces.filter(isV03Interface);
  const seen = new Set<string>();
  const additional = (v03.length ? v03 : c.supportedInterfaces)
    .map((i) => ({ url: i.url, transport: i.protocolBinding }))
    .filter((i) => (seen.has(`${i.transport} ${i.url}`) ? false : (seen.add(`${i.transport} ${i.url}`), true)));
  if (additional.length) out.additionalInterfaces = additional;
  if (c.provider) out.provider = c.provider;
  if (c.documentationUrl) out.documentationUrl = c.documentationUrl;
  if (c.iconUrl) out.iconUrl = c.iconUrl;
  if (c.securitySchemes) out.securitySchemes = Object.fromEntries(Object.entries(c.securitySchemes).map(([k, s]) => [k, securitySchemeFromV1(s)]));
  if (c.securityRequirements) out.security = securityFromV1(c.securityRequirements);
  if (c.capabilities.extendedAgentCard !== undefined) out.supportsAuthenticatedExtendedCard = c.capabilities.extendedAgentCard;
  return out;
}

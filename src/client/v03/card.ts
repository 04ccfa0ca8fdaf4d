/**
 * A v0.3 (or v0.2) agent card read as a v1.0 card, so interface selection and the CLI see one
 * shape. `url` + `preferredTransport` become the first interface and `additionalInterfaces` the
 * next ones, all with `protocolVersion: "0.3"`; type-keyed security schemes become the v1.0 oneof
 * wrappers. Signatures are not carried over: they cover the v0.3 JSON, not this shape.
 */
import type { AgentCard, AgentInterface, JsonObject, SecurityRequirement, SecurityScheme } from '../../protocol/a2a/types.js';
import { isObject } from '../http.js';

type Obj = Record<string, unknown>;

/** A card is v0.3-shaped when it has the v0.3 `url` and no v1.0 `supportedInterfaces`. */
export const isV03Card = (v: unknown): v is Obj => isObject(v) && !Array.isArray(v.supportedInterfaces) && typeof v.url === 'string';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function requirementsFromV03(v: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isObject).map((r) => ({ schemes: Object.fromEntries(Object.entries(r).map(([name, scopes]) => [name, { list: Array.isArray(scopes) ? scopes.map(String) : [] }])) }));
}

function schemeFromV03(s: Obj): SecurityScheme | undefined {
  const description = typeof s.description === 'string' ? { description: s.description } : {};
  switch (s.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { ...description, location: (str(s.in) || 'header') as 'header', name: str(s.name) } };
    case 'http':
      return { httpAuthSecurityScheme: { ...description, scheme: str(s.scheme), ...(typeof s.bearerFormat === 'string' ? { bearerFormat: s.bearerFormat } : {}) } };
    case 'oauth2': {
      // v1.0 keeps one flow per scheme (OAuthFlows is a oneof): the first one listed.
      const flows = isObject(s.flows) ? s.flows : {};
      const first = Object.entries(flows)[0];
      return { oauth2SecurityScheme: { ...description, flows: (first ? { [first[0]]: first[1] } : {}) as JsonObject, ...(typeof s.oauth2MetadataUrl === 'string' ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}) } };
    }
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: { ...description, openIdConnectUrl: str(s.openIdConnectUrl) } };
    case 'mutualTLS':
      return { mtlsSecurityScheme: { ...description } };
    default:
      return undefined;
  }
}

export function agentCardFromV03(c: Obj): AgentCard {
  const interfaces: AgentInterface[] = [{ url: str(c.url), protocolBinding: str(c.preferredTransport) || 'JSONRPC', protocolVersion: '0.3' }];
  for (const extra of Array.isArray(c.additionalInterfaces) ? c.additionalInterfaces.filter(isObject) : []) {
    const i: AgentInterface = { url: str(extra.url), protocolBinding: str(extra.transport), protocolVersion: '0.3' };
    if (!interfaces.some((x) => x.url === i.url && x.protocolBinding === i.protocolBinding)) interfaces.push(i);
  }
  const caps = isObject(c.capabilities) ? c.capabilities : {};
  const schemes = isObject(c.securitySchemes)
    ? Object.fromEntries(
        Object.entries(c.securitySchemes)
          .map(([name, s]) => [name, isObject(s) ? schemeFromV03(s) : undefined] as const)
          .filter((e): e is readonly [string, SecurityScheme] => e[1] !== undefined),
      )
    : undefined;
  const card: AgentCard = {
    name: str(c.name),
    description: str(c.description),
    supportedInterfaces: interfaces,
    version: str(c.version),
    capabilities: {
      ...(typeof caps.streaming === 'boolean' ? { streaming: caps.streaming } : {}),
      ...(typeof caps.pushNotifications === 'boolean' ? { pushNotifications: caps.pushNotifications } : {}),
      // as the agent declared them: the extension objects did not change shape in v1.0
      ...(Array.isArray(caps.extensions) ? { extensions: caps.extensions } : {}),
      ...(c.supportsAuthenticatedExtendedCard === true ? { extendedAgentCard: true } : {}),
    },
    defaultInputModes: Array.isArray(c.defaultInputModes) ? c.defaultInputModes.map(String) : [],
    defaultOutputModes: Array.isArray(c.defaultOutputModes) ? c.defaultOutputModes.map(String) : [],
    skills: (Array.isArray(c.skills) ? c.skills.filter(isObject) : []).map((s) => {
      const reqs = requirementsFromV03(s.security);
      return {
        id: str(s.id),
        name: str(s.name),
        description: str(s.description),
        tags: Array.isArray(s.tags) ? s.tags.map(String) : [],
        ...(Array.isArray(s.examples) ? { examples: s.examples.map(String) } : {}),
        ...(Array.isArray(s.inputModes) ? { inputModes: s.inputModes.map(String) } : {}),
        ...(Array.isArray(s.outputModes) ? { outputModes: s.outputModes.map(String) } : {}),
        ...(reqs ? { securityRequirements: reqs } : {}),
      };
    }),
  };
  if (isObject(c.provider)) card.provider = { url: str(c.provider.url), organization: str(c.provider.organization) };
  if (typeof c.documentationUrl === 'string') card.documentationUrl = c.documentationUrl;
  if (typeof c.iconUrl === 'string') card.iconUrl = c.iconUrl;
  if (schemes && Object.keys(schemes).length) card.securitySchemes = schemes;
  const reqs = requirementsFromV03(c.security);
  if (reqs) card.securityRequirements = reqs;
  return card;
}

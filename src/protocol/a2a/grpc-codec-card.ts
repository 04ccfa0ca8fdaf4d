/**
 * AgentCard between its proto-loader object form and ProtoJSON, including the two oneofs
 * (SecurityScheme, OAuthFlows) and the maps (security schemes, SecurityRequirement.schemes).
 *
 * A card is server output, so its decoder is lenient: a REQUIRED string or list that is missing
 * decodes to "" / [] (as ProtoJSON would print it) rather than failing the whole card.
 */
import { invalidParams } from './errors.js';
import { encodeOptStruct, optList, optString, optStruct, optTrue, prune } from './grpc-codec-wkt.js';
import type {
  WireAgentCapabilities,
  WireAgentCard,
  WireAgentCardSignature,
  WireAgentExtension,
  WireAgentInterface,
  WireAgentSkill,
  WireOAuthFlow,
  WireOAuthFlows,
  WireSecurityRequirement,
  WireSecurityScheme,
} from './grpc-codec-wire.js';
import type { AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface, AgentSkill, JsonObject, JsonValue, SecurityRequirement, SecurityScheme } from './types.js';

const isJsonObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- SecurityRequirement (map<string, StringList>) ----

export function decodeSecurityRequirement(w: WireSecurityRequirement): SecurityRequirement {
  const schemes: SecurityRequirement['schemes'] = {};
  for (const [name, scopes] of Object.entries(w.schemes ?? {})) schemes[name] = { list: [...(scopes?.list ?? [])] };
  return { schemes };
}

export function encodeSecurityRequirement(r: SecurityRequirement): WireSecurityRequirement {
  const schemes: NonNullable<WireSecurityRequirement['schemes']> = {};
  for (const [name, scopes] of Object.entries(r.schemes)) schemes[name] = { list: [...scopes.list] };
  return { schemes };
}

const decodeRequirements = (w: WireSecurityRequirement[] | undefined): SecurityRequirement[] | undefined => optList(w)?.map(decodeSecurityRequirement);
const encodeRequirements = (r: SecurityRequirement[] | undefined): WireSecurityRequirement[] | undefined => r?.map(encodeSecurityRequirement);

// ---- OAuthFlows (oneof flow) ----

type FlowKey = 'authorizationCode' | 'clientCredentials' | 'implicit' | 'password' | 'deviceCode';
type FlowUrlField = 'authorizationUrl' | 'deviceAuthorizationUrl' | 'tokenUrl' | 'refreshUrl';

/** The URL fields each flow message declares; `scopes` is on all of them, `pkceRequired` only on authorizationCode. */
const FLOW_URL_FIELDS: Record<FlowKey, readonly FlowUrlField[]> = {
  authorizationCode: ['authorizationUrl', 'tokenUrl', 'refreshUrl'],
  clientCredentials: ['tokenUrl', 'refreshUrl'],
  implicit: ['authorizationUrl', 'refreshUrl'],
  password: ['tokenUrl', 'refreshUrl'],
  deviceCode: ['deviceAuthorizationUrl', 'tokenUrl', 'refreshUrl'],
};
const FLOW_KEYS = Object.keys(FLOW_URL_FIELDS) as FlowKey[];

export function decodeOAuthFlows(w: WireOAuthFlows, field: string): JsonObject {
  const key = (w.flow as FlowKey | undefined) ?? FLOW_KEYS.find((k) => w[k] !== undefined && w[k] !== null);
  if (key === undefined || !FLOW_KEYS.includes(key)) throw invalidParams(field, 'one OAuth flow is required');
  const flow: WireOAuthFlow = w[key] ?? {};
  const out: JsonObject = {};
  for (const f of FLOW_URL_FIELDS[key]) {
    const v = optString(flow[f]);
    if (v !== undefined) out[f] = v;
  }
  out.scopes = { ...(flow.scopes ?? {}) };
  if (key === 'authorizationCode' && optTrue(flow.pkceRequired)) out.pkceRequired = true;
  return { [key]: out };
}

export function encodeOAuthFlows(flows: JsonObject, field: string): WireOAuthFlows {
  const present = FLOW_KEYS.filter((k) => flows[k] !== undefined && flows[k] !== null);
  const key = present[0];
  if (present.length !== 1 || key === undefined) throw new TypeError(`${field}: exactly one OAuth flow expected`);
  const flow = flows[key];
  if (!isJsonObject(flow)) throw new TypeError(`${field}.${key}: must be an object`);
  const out: WireOAuthFlow = {};
  for (const f of FLOW_URL_FIELDS[key]) {
    const v = flow[f];
    if (typeof v === 'string') out[f] = v;
  }
  const scopes: Record<string, string> = {};
  const rawScopes = flow.scopes;
  if (isJsonObject(rawScopes)) {
    for (const [scope, description] of Object.entries(rawScopes)) {
      if (typeof description !== 'string') throw new TypeError(`${field}.${key}.scopes.${scope}: must be a string`);
      scopes[scope] = description;
    }
  }
  out.scopes = scopes;
  if (key === 'authorizationCode' && flow.pkceRequired === true) out.pkceRequired = true;
  return { [key]: out };
}

// ---- SecurityScheme (oneof scheme) ----

const SCHEME_KEYS = ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'] as const;
type SchemeKey = (typeof SCHEME_KEYS)[number];
const API_KEY_LOCATIONS = ['query', 'header', 'cookie'] as const;

export function decodeSecurityScheme(w: WireSecurityScheme, field: string): SecurityScheme {
  const key = (w.scheme as SchemeKey | undefined) ?? SCHEME_KEYS.find((k) => w[k] !== undefined && w[k] !== null);
  switch (key) {
    case 'apiKeySecurityScheme': {
      const s = w.apiKeySecurityScheme ?? {};
      const location = API_KEY_LOCATIONS.find((l) => l === s.location);
      if (!location) throw invalidParams(`${field}.apiKeySecurityScheme.location`, 'must be query, header or cookie');
      return { apiKeySecurityScheme: prune({ description: optString(s.description), location, name: s.name ?? '' }) };
    }
    case 'httpAuthSecurityScheme': {
      const s = w.httpAuthSecurityScheme ?? {};
      return {
        httpAuthSecurityScheme: prune({ description: optString(s.description), scheme: s.scheme ?? '', bearerFormat: optString(s.bearerFormat) }),
      };
    }
    case 'oauth2SecurityScheme': {
      const s = w.oauth2SecurityScheme ?? {};
      return {
        oauth2SecurityScheme: prune({
          description: optString(s.description),
          flows: decodeOAuthFlows(s.flows ?? {}, `${field}.oauth2SecurityScheme.flows`),
          oauth2MetadataUrl: optString(s.oauth2MetadataUrl),
        }),
      };
    }
    case 'openIdConnectSecurityScheme': {
      const s = w.openIdConnectSecurityScheme ?? {};
      return { openIdConnectSecurityScheme: prune({ description: optString(s.description), openIdConnectUrl: s.openIdConnectUrl ?? '' }) };
    }
    case 'mtlsSecurityScheme':
      return { mtlsSecurityScheme: prune({ description: optString(w.mtlsSecurityScheme?.description) }) };
    default:
      throw invalidParams(field, 'one security scheme type is required');
  }
}

export function encodeSecurityScheme(s: SecurityScheme, field: string): WireSecurityScheme {
  if ('apiKeySecurityScheme' in s) return { apiKeySecurityScheme: prune({ ...s.apiKeySecurityScheme }) };
  if ('httpAuthSecurityScheme' in s) return { httpAuthSecurityScheme: prune({ ...s.httpAuthSecurityScheme }) };
  if ('oauth2SecurityScheme' in s) {
    const o = s.oauth2SecurityScheme;
    return {
      oauth2SecurityScheme: prune({
        description: o.description,
        flows: encodeOAuthFlows(o.flows, `${field}.oauth2SecurityScheme.flows`),
        oauth2MetadataUrl: o.oauth2MetadataUrl,
      }),
    };
  }
  if ('openIdConnectSecurityScheme' in s) return { openIdConnectSecurityScheme: prune({ ...s.openIdConnectSecurityScheme }) };
  if ('mtlsSecurityScheme' in s) return { mtlsSecurityScheme: prune({ ...s.mtlsSecurityScheme }) };
  throw new TypeError(`${field}: unknown security scheme type`);
}

// ---- AgentCard and its parts ----

const decodeInterface = (w: WireAgentInterface): AgentInterface => prune({ url: w.url ?? '', protocolBinding: w.protocolBinding ?? '', tenant: optString(w.tenant), protocolVersion: w.protocolVersion ?? '' });

const decodeExtension = (w: WireAgentExtension, field: string): AgentExtension =>
  prune({ uri: w.uri ?? '', description: optString(w.description), required: optTrue(w.required), params: optStruct(w.params, `${field}.params`) });

function decodeCapabilities(w: WireAgentCapabilities, field: string): AgentCapabilities {
  return prune({
    streaming: w.streaming,
    pushNotifications: w.pushNotifications,
    extensions: optList(w.extensions)?.map((e, i) => decodeExtension(e, `${field}.extensions[${i}]`)),
    extendedAgentCard: w.extendedAgentCard,
  });
}

const decodeSkill = (w: WireAgentSkill): AgentSkill =>
  prune({
    id: w.id ?? '',
    name: w.name ?? '',
    description: w.description ?? '',
    tags: [...(w.tags ?? [])],
    examples: optList(w.examples),
    inputModes: optList(w.inputModes),
    outputModes: optList(w.outputModes),
    securityRequirements: decodeRequirements(w.securityRequirements),
  });

const decodeSignature = (w: WireAgentCardSignature, field: string): AgentCardSignature => prune({ protected: w.protected ?? '', signature: w.signature ?? '', header: optStruct(w.header, `${field}.header`) });

export function decodeAgentCard(w: WireAgentCard): AgentCard {
  let securitySchemes: Record<string, SecurityScheme> | undefined;
  for (const [name, scheme] of Object.entries(w.securitySchemes ?? {})) {
    (securitySchemes ??= {})[name] = decodeSecurityScheme(scheme, `securitySchemes.${name}`);
  }
  return prune({
    name: w.name ?? '',
    description: w.description ?? '',
    supportedInterfaces: (w.supportedInterfaces ?? []).map(decodeInterface),
    provider: w.provider ? { url: w.provider.url ?? '', organization: w.provider.organization ?? '' } : undefined,
    version: w.version ?? '',
    documentationUrl: w.documentationUrl,
    capabilities: decodeCapabilities(w.capabilities ?? {}, 'capabilities'),
    securitySchemes,
    securityRequirements: decodeRequirements(w.securityRequirements),
    defaultInputModes: [...(w.defaultInputModes ?? [])],
    defaultOutputModes: [...(w.defaultOutputModes ?? [])],
    skills: (w.skills ?? []).map(decodeSkill),
    signatures: optList(w.signatures)?.map((s, i) => decodeSignature(s, `signatures[${i}]`)),
    iconUrl: w.iconUrl,
  });
}

const encodeExtension = (e: AgentExtension, field: string): WireAgentExtension => prune({ uri: e.uri, description: e.description, required: e.required, params: encodeOptStruct(e.params, `${field}.params`) });

export function encodeAgentCard(card: AgentCard): WireAgentCard {
  let securitySchemes: Record<string, WireSecurityScheme> | undefined;
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    (securitySchemes ??= {})[name] = encodeSecurityScheme(scheme, `securitySchemes.${name}`);
  }
  const caps = card.capabilities;
  return prune({
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces.map((i) => prune({ ...i })),
    provider: card.provider ? { ...card.provider } : undefined,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: prune({
      streaming: caps.streaming,
      pushNotifications: caps.pushNotifications,
      extensions: caps.extensions?.map((e, i) => encodeExtension(e, `capabilities.extensions[${i}]`)),
      extendedAgentCard: caps.extendedAgentCard,
    }),
    securitySchemes,
    securityRequirements: encodeRequirements(card.securityRequirements),
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map((s) =>
      prune({
        id: s.id,
        name: s.name,
        description: s.description,
        tags: [...s.tags],
        examples: s.examples,
        inputModes: s.inputModes,
        outputModes: s.outputModes,
        securityRequirements: encodeRequirements(s.securityRequirements),
      }),
    ),
    signatures: card.signatures?.map((s, i) => prune({ protected: s.protected, signature: s.signature, header: encodeOptStruct(s.header, `signatures[${i}].header`) })),
    iconUrl: card.iconUrl,
  });
}

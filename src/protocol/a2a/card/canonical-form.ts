/**
 * The bytes an agent-card signature covers (spec v1.0.1 §8.4.1): the card without `signatures`,
 * reduced by proto field-presence rules (§5.7), then JCS (RFC 8785).
 *
 * Two forms exist because the spec and the reference SDKs disagree (digest §6, §12.9):
 * - spec form: REQUIRED fields always kept, `optional` fields kept when set, other fields
 *   omitted at their default (`""`, `false`, `0`, `[]`, `{}`);
 * - SDK form (a2a-js `canonicalizeAgentCard`, a2a-python `_canonicalize_agent_card`): the same,
 *   then every empty string, array, object and null removed recursively, REQUIRED or not.
 * For a card without empty values both forms are the same string; `buildAgentCard` avoids
 * empties so that is the normal case, and `signAgentCard` covers the rest with a second signature.
 *
 * Fields outside the v1.0 schema are kept (and so covered by the signature). The SDKs drop them
 * before signing, which would let anyone add e.g. a v0.3 `url` to a signed card unnoticed.
 */
import canonicalizeModule from 'canonicalize';
import type { AgentCard } from '../types.js';

// `canonicalize` is CommonJS with an ESM-style `export default` in its typings: Node hands ESM the
// function itself, TypeScript (NodeNext) types the import as `{ default }`. Accept either.
type Canonicalize = (input: unknown) => string | undefined;
const canonicalize: Canonicalize =
  typeof canonicalizeModule === 'function'
    ? (canonicalizeModule as Canonicalize)
    : // the typings' view of the module object (see above), unrelated to the function type
      (canonicalizeModule as unknown as { default: Canonicalize }).default;

/**
 * required: REQUIRED, always kept; optional: proto3 `optional`, kept when set;
 * implicit: no presence, omitted at its default; message: singular message (or Struct), kept when set.
 */
type Presence = 'required' | 'optional' | 'implicit' | 'message';
interface FieldRule {
  presence: Presence;
  /** schema of the message (or of each element / map value) */
  of?: MessageSchema;
  container?: 'list' | 'map';
}
type MessageSchema = { readonly [field: string]: FieldRule };

const R = (of?: MessageSchema, container?: 'list' | 'map'): FieldRule => ({ presence: 'required', of, container });
const O: FieldRule = { presence: 'optional' };
const I = (of?: MessageSchema, container?: 'list' | 'map'): FieldRule => ({ presence: 'implicit', of, container });
const M = (of?: MessageSchema): FieldRule => ({ presence: 'message', of });

// Transcribed from specification/a2a.proto at v1.0.1 (messages reachable from AgentCard).
const AgentInterface: MessageSchema = { url: R(), protocolBinding: R(), tenant: I(), protocolVersion: R() };
const AgentProvider: MessageSchema = { url: R(), organization: R() };
const AgentExtension: MessageSchema = { uri: I(), description: I(), required: I(), params: M() };
const AgentCapabilities: MessageSchema = {
  streaming: O,
  pushNotifications: O,
  extensions: I(AgentExtension, 'list'),
  extendedAgentCard: O,
};
const StringList: MessageSchema = { list: I() };
const SecurityRequirement: MessageSchema = { schemes: I(StringList, 'map') };
const AuthorizationCodeOAuthFlow: MessageSchema = {
  authorizationUrl: R(),
  tokenUrl: R(),
  refreshUrl: I(),
  scopes: R(),
  pkceRequired: I(),
};
const ClientCredentialsOAuthFlow: MessageSchema = { tokenUrl: R(), refreshUrl: I(), scopes: R() };
const ImplicitOAuthFlow: MessageSchema = { authorizationUrl: I(), refreshUrl: I(), scopes: I() };
const PasswordOAuthFlow: MessageSchema = { tokenUrl: I(), refreshUrl: I(), scopes: I() };
const DeviceCodeOAuthFlow: MessageSchema = { deviceAuthorizationUrl: R(), tokenUrl: R(), refreshUrl: I(), scopes: R() };
const OAuthFlows: MessageSchema = {
  authorizationCode: M(AuthorizationCodeOAuthFlow),
  clientCredentials: M(ClientCredentialsOAuthFlow),
  implicit: M(ImplicitOAuthFlow),
  password: M(PasswordOAuthFlow),
  deviceCode: M(DeviceCodeOAuthFlow),
};
const SecurityScheme: MessageSchema = {
  apiKeySecurityScheme: M({ description: I(), location: R(), name: R() }),
  httpAuthSecurityScheme: M({ description: I(), scheme: R(), bearerFormat: I() }),
  oauth2SecurityScheme: M({ description: I(), flows: R(OAuthFlows), oauth2MetadataUrl: I() }),
  openIdConnectSecurityScheme: M({ description: I(), openIdConnectUrl: R() }),
  mtlsSecurityScheme: M({ description: I() }),
};
const AgentSkill: MessageSchema = {
  id: R(),
  name: R(),
  description: R(),
  tags: R(),
  examples: I(),
  inputModes: I(),
  outputModes: I(),
  securityRequirements: I(SecurityRequirement, 'list'),
};
const AgentCardSchema: MessageSchema = {
  name: R(),
  description: R(),
  supportedInterfaces: R(AgentInterface, 'list'),
  provider: M(AgentProvider),
  version: R(),
  documentationUrl: O,
  capabilities: R(AgentCapabilities),
  securitySchemes: I(SecurityScheme, 'map'),
  securityRequirements: I(SecurityRequirement, 'list'),
  defaultInputModes: R(),
  defaultOutputModes: R(),
  skills: R(AgentSkill, 'list'),
  iconUrl: O,
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDefault(v: unknown): boolean {
  if (v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

/** A JSON copy, without `undefined` members (they are not JSON). */
function toJson(v: unknown): Json | undefined {
  if (v === undefined) return undefined;
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((e) => toJson(e) ?? null);
  if (isPlainObject(v)) {
    const out: { [key: string]: Json } = {};
    for (const [k, e] of Object.entries(v)) {
      const j = toJson(e);
      if (j !== undefined) out[k] = j;
    }
    return out;
  }
  throw new TypeError(`agent card holds a value that is not JSON: ${typeof v}`);
}

function applyPresence(value: object, schema: MessageSchema): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  const fields: [string, unknown][] = Object.entries(value);
  for (const [key, raw] of fields) {
    if (raw === undefined) continue;
    const rule = schema[key];
    if (rule === undefined) {
      const unknown = toJson(raw);
      if (unknown !== undefined) out[key] = unknown;
      continue;
    }
    if (raw === null) continue; // ProtoJSON null = not set
    const child = normalizeField(raw, rule);
    if (rule.presence === 'implicit' && isDefault(child)) continue;
    out[key] = child;
  }
  return out;
}

function normalizeField(raw: unknown, rule: FieldRule): Json {
  const of = rule.of;
  if (of === undefined) return toJson(raw) ?? null;
  if (rule.container === 'list' && Array.isArray(raw)) {
    return raw.map((e) => (isPlainObject(e) ? applyPresence(e, of) : (toJson(e) ?? null)));
  }
  if (rule.container === 'map' && isPlainObject(raw)) {
    const out: { [key: string]: Json } = {};
    for (const [k, e] of Object.entries(raw)) {
      if (e === undefined) continue;
      out[k] = isPlainObject(e) ? applyPresence(e, of) : (toJson(e) ?? null);
    }
    return out;
  }
  if (rule.container === undefined && isPlainObject(raw)) return applyPresence(raw, of);
  // Wrong shape for the schema: keep it verbatim so it is still covered by the signature.
  return toJson(raw) ?? null;
}

/** Removes empty strings, arrays, objects and nulls recursively, as both reference SDKs do. */
function stripEmpty(v: Json): Json | undefined {
  if (v === null || v === '') return undefined;
  if (Array.isArray(v)) {
    const list = v.map(stripEmpty).filter((e): e is Json => e !== undefined);
    return list.length > 0 ? list : undefined;
  }
  if (typeof v === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [k, e] of Object.entries(v)) {
      const s = stripEmpty(e);
      if (s !== undefined) out[k] = s;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return v;
}

function presenceForm(card: AgentCard): { [key: string]: Json } {
  const { signatures: _excluded, ...rest } = card;
  return applyPresence(rest, AgentCardSchema);
}

function jcs(value: Json): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError('agent card cannot be canonicalized');
  return out;
}

/** The payload the spec defines (§8.4.1). */
export function canonicalCardPayload(card: AgentCard): string {
  return jcs(presenceForm(card));
}

/** The payload the a2a-js and a2a-python verifiers compute for the same card. */
export function sdkCompatibleCardPayload(card: AgentCard): string {
  return jcs(stripEmpty(presenceForm(card)) ?? {});
}

/**
 * Turns what an agent declares (`AgentCardSpec`) into the v1.0 AgentCard a server publishes
 * (spec v1.0.1 §4.4.1, proto `lf.a2a.v1.AgentCard`), in ProtoJSON shape.
 *
 * The output never holds `undefined`, empty strings, or empty optional arrays/maps: ProtoJSON
 * omits defaults, and a card without empties canonicalizes to the same bytes under the spec's
 * presence rules and under the SDKs' empty-stripping (see canonical-form.ts), so one signature
 * satisfies every verifier. Only REQUIRED lists may be empty (`skills`, `tags`), and a
 * `SecurityRequirement` scheme without scopes keeps `list: []`, as its TypeScript type demands.
 */
import type { AgentCardSpec } from './agent-card-spec.js';
import type { AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, JsonObject, SecurityRequirement, SecurityScheme } from '../types.js';

export const DEFAULT_AGENT_VERSION = '1.0.0';
export const DEFAULT_MODES: readonly string[] = ['text/plain'];

export interface BuildAgentCardOptions {
  /** ordered, first = preferred (spec §8.3); must not be empty */
  interfaces: AgentInterface[];
  /** build the extended card: include skills declared with `visibility: 'extended'` */
  extended: boolean;
  /** the server serves an extended card (sets `capabilities.extendedAgentCard`) */
  extendedCardEnabled: boolean;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
}

/** A card declaration the builder cannot turn into a valid v1.0 card; `field` is its JSON path. */
export class AgentCardSpecError extends Error {
  override readonly name = 'AgentCardSpecError';
  readonly code = 'INVALID_AGENT_CARD_SPEC';
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`agent card ${field}: ${reason}`);
  }
}

type SpecSkill = AgentCardSpec['skills'][number];

export function buildAgentCard(spec: AgentCardSpec, opts: BuildAgentCardOptions): AgentCard {
  const securitySchemes = buildSecuritySchemes(opts.securitySchemes);
  const schemeNames = new Set(Object.keys(securitySchemes ?? {}));
  const card: AgentCard = {
    name: requiredText(spec.name, 'name'),
    description: requiredText(spec.description, 'description'),
    supportedInterfaces: buildInterfaces(opts.interfaces),
    version: text(spec.version) ?? DEFAULT_AGENT_VERSION,
    capabilities: buildCapabilities(spec, opts.extendedCardEnabled),
    defaultInputModes: textList(spec.defaultInputModes) ?? [...DEFAULT_MODES],
    defaultOutputModes: textList(spec.defaultOutputModes) ?? [...DEFAULT_MODES],
    skills: buildSkills(spec.skills, opts.extended, schemeNames),
  };
  if (spec.provider !== undefined) {
    card.provider = {
      url: requiredText(spec.provider.url, 'provider.url'),
      organization: requiredText(spec.provider.organization, 'provider.organization'),
    };
  }
  const documentationUrl = text(spec.documentationUrl);
  if (documentationUrl !== undefined) card.documentationUrl = documentationUrl;
  if (securitySchemes !== undefined) card.securitySchemes = securitySchemes;
  const securityRequirements = buildRequirements(opts.securityRequirements, schemeNames, 'securityRequirements');
  if (securityRequirements !== undefined) card.securityRequirements = securityRequirements;
  const iconUrl = text(spec.iconUrl);
  if (iconUrl !== undefined) card.iconUrl = iconUrl;
  return orderLikeProto(card);
}

function text(v: string | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function requiredText(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '') throw new AgentCardSpecError(field, 'is required and must be a non-empty string');
  return v;
}

/** Non-empty strings only; `undefined` when nothing is left, so the key is omitted. */
function textList(v: readonly string[] | undefined): string[] | undefined {
  const list = (v ?? []).filter((s) => typeof s === 'string' && s !== '');
  return list.length > 0 ? list : undefined;
}

function buildInterfaces(interfaces: readonly AgentInterface[]): AgentInterface[] {
  if (!Array.isArray(interfaces) || interfaces.length === 0) {
    throw new AgentCardSpecError('supportedInterfaces', 'at least one interface is required');
  }
  return interfaces.map((i, n) => {
    const url = requiredText(i.url, `supportedInterfaces[${n}].url`);
    const protocolBinding = requiredText(i.protocolBinding, `supportedInterfaces[${n}].protocolBinding`);
    const protocolVersion = requiredText(i.protocolVersion, `supportedInterfaces[${n}].protocolVersion`);
    const tenant = text(i.tenant);
    return tenant === undefined ? { url, protocolBinding, protocolVersion } : { url, protocolBinding, tenant, protocolVersion };
  });
}

function buildCapabilities(spec: AgentCardSpec, extendedCardEnabled: boolean): AgentCapabilities {
  // streaming, pushNotifications and extendedAgentCard are proto3 `optional`: an explicit false is
  // kept by every canonicalization, so clients never have to guess a default.
  const caps: AgentCapabilities = {
    streaming: spec.capabilities?.streaming === true,
    pushNotifications: spec.capabilities?.pushNotifications === true,
  };
  const extensions = (spec.capabilities?.extensions ?? []).map(buildExtension);
  if (extensions.length > 0) caps.extensions = extensions;
  caps.extendedAgentCard = extendedCardEnabled;
  return caps;
}

function buildExtension(e: AgentExtension, n: number): AgentExtension {
  const out: AgentExtension = { uri: requiredText(e.uri, `capabilities.extensions[${n}].uri`) };
  const description = text(e.description);
  if (description !== undefined) out.description = description;
  // `required` has no presence in the proto: false is its default and is omitted.
  if (e.required === true) out.required = true;
  if (e.params !== undefined && Object.keys(e.params).length > 0) out.params = structuredClone(e.params) as JsonObject;
  return out;
}

function buildSkills(skills: readonly SpecSkill[], extended: boolean, schemeNames: ReadonlySet<string>): AgentSkill[] {
  const seen = new Set<string>();
  const out: AgentSkill[] = [];
  skills.forEach((s, n) => {
    const at = `skills[${n}]`;
    const id = requiredText(s.id, `${at}.id`);
    if (seen.has(id)) throw new AgentCardSpecError(`${at}.id`, `duplicate skill id "${id}"`);
    seen.add(id);
    if (s.visibility !== undefined && s.visibility !== 'public' && s.visibility !== 'extended') {
      throw new AgentCardSpecError(`${at}.visibility`, `must be "public" or "extended", got ${JSON.stringify(s.visibility)}`);
    }
    if (s.visibility === 'extended' && !extended) return;
    const skill: AgentSkill = {
      id,
      name: requiredText(s.name, `${at}.name`),
      description: requiredText(s.description, `${at}.description`),
      tags: textList(s.tags) ?? [],
    };
    const examples = textList(s.examples);
    if (examples !== undefined) skill.examples = examples;
    const inputModes = textList(s.inputModes);
    if (inputModes !== undefined) skill.inputModes = inputModes;
    const outputModes = textList(s.outputModes);
    if (outputModes !== undefined) skill.outputModes = outputModes;
    const requirements = buildRequirements(s.securityRequirements, schemeNames, `${at}.securityRequirements`);
    if (requirements !== undefined) skill.securityRequirements = requirements;
    out.push(skill);
  });
  return out;
}

const SCHEME_KINDS = ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'] as const;

function buildSecuritySchemes(schemes: Record<string, SecurityScheme> | undefined): Record<string, SecurityScheme> | undefined {
  const entries = Object.entries(schemes ?? {});
  if (entries.length === 0) return undefined;
  const out: Record<string, SecurityScheme> = {};
  for (const [name, scheme] of entries) {
    const at = `securitySchemes.${name}`;
    if (name === '') throw new AgentCardSpecError(at, 'scheme name must not be empty');
    const kinds = Object.keys(scheme).filter((k) => (SCHEME_KINDS as readonly string[]).includes(k));
    if (kinds.length !== 1 || Object.keys(scheme).length !== 1) {
      throw new AgentCardSpecError(at, `must hold exactly one of ${SCHEME_KINDS.join(', ')}`);
    }
    // The builder emits the scheme's own members with empty optional strings dropped; deep
    // content (OAuth flows) is copied as declared.
    const [kind, body] = Object.entries(scheme)[0] as [string, unknown];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AgentCardSpecError(`${at}.${kind}`, 'must be an object');
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      if (v === undefined || v === '') continue;
      copy[k] = structuredClone(v);
    }
    // a one-member object keyed by a name checked against SCHEME_KINDS: TypeScript cannot type a computed key
    out[name] = { [kind]: copy } as unknown as SecurityScheme;
  }
  return out;
}

function buildRequirements(requirements: readonly SecurityRequirement[] | undefined, schemeNames: ReadonlySet<string>, field: string): SecurityRequirement[] | undefined {
  if (requirements === undefined || requirements.length === 0) return undefined;
  return requirements.map((req, n) => {
    const schemes: SecurityRequirement['schemes'] = {};
    const names = Object.keys(req.schemes ?? {});
    if (names.length === 0) throw new AgentCardSpecError(`${field}[${n}]`, 'names no security scheme');
    for (const name of names) {
      // A requirement on a scheme the card does not declare could never be satisfied or enforced.
      if (!schemeNames.has(name)) throw new AgentCardSpecError(`${field}[${n}].schemes.${name}`, 'is not declared in securitySchemes');
      schemes[name] = { list: (req.schemes[name]?.list ?? []).filter((s) => s !== '') };
    }
    return { schemes };
  });
}

/** Key order of the proto message, for a card that reads like the spec's examples. */
function orderLikeProto(card: AgentCard): AgentCard {
  const order: Array<keyof AgentCard> = [
    'name',
    'description',
    'supportedInterfaces',
    'provider',
    'version',
    'documentationUrl',
    'capabilities',
    'securitySchemes',
    'securityRequirements',
    'defaultInputModes',
    'defaultOutputModes',
    'skills',
    'signatures',
    'iconUrl',
  ];
  const out: Partial<AgentCard> = {};
  const copy = <K extends keyof AgentCard>(key: K): void => {
    if (card[key] !== undefined) out[key] = card[key];
  };
  for (const key of order) copy(key);
  // every field `card` has set, required ones included
  return out as AgentCard;
}

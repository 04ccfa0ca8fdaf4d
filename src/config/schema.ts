/**
 * The shape of `agentport.yaml`, in zod. Every section and key is optional; defaults that do not
 * depend on other keys live here, the rest (URLs derived from host/port, paths resolved against the
 * file's directory, per-agent fallbacks) in resolve.ts. Objects are strict: an unknown key is an
 * error, because a misspelt key that is silently ignored is a setting that silently does not apply.
 *
 * docs/configuration.md is the reference for every key; keep the two in step.
 */
import { z } from 'zod';
import { oauthSchema } from './oauth-schema.js';
import { AGENT_ID_PATTERN, LOG_LEVELS, bool, byteSize, duration, grpcAddress, host, hostOrCidr, httpBaseUrl, integer, nonEmptyString, port, uri } from './primitives.js';
import { auditSchema, quotasSchema, skillCostSchema, usageSchema } from './usage-schema.js';
import { loggingSchema, metricsSchema, tracingSchema } from './observability-schema.js';
import { publicBaseUrl } from './public-url-prefix.js';
import { llmSchema } from './llm-schema.js';

export const DEFAULT_AGENTS = [
  { id: 'echo', builtin: 'echo' as const },
  { id: 'table-expert', builtin: 'table-expert' as const },
];
export const BUILTIN_AGENTS = ['echo', 'conformance', 'table-expert'] as const;

const grpcSchema = z
  .object({
    enabled: bool.default(true),
    host: host.optional(),
    port: port.default(50051),
    publicUrl: grpcAddress.optional(),
  })
  .strict();

const serverSchema = z
  .object({
    host: host.default('127.0.0.1'),
    port: port.default(8080),
    publicUrl: publicBaseUrl.optional(),
    grpc: grpcSchema.default({}),
    dataDir: nonEmptyString.default('./.agentport'),
    logLevel: z.enum(LOG_LEVELS).default('info'),
  })
  .strict();

const limitsSchema = z
  .object({
    bodyBytes: byteSize(1024).default(4 * 1024 * 1024),
    headerBytes: byteSize(1024).default(16 * 1024),
    requestTimeoutMs: duration(1).default(60_000),
    blockingSendTimeoutMs: duration(1).default(60_000),
    maxHistoryLength: integer(0).default(1000),
    sseKeepAliveMs: duration(100).default(15_000),
    maxConcurrentStreamsPerTask: integer(1).default(32),
    pushTimeoutMs: duration(1).default(10_000),
    pushMaxAttempts: integer(1, 100).default(8),
    /** server-wide bytes of request bodies being read at once; past it, 503 with Retry-After */
    bodyBytesInFlight: byteSize(1024).default(64 * 1024 * 1024),
    /** the longest one request body may take to arrive */
    bodyReadTimeoutMs: duration(1).default(30_000),
    /** a task-creating SendMessage that repeats a messageId returns the task the first one created */
    deduplicateMessageIds: bool.default(true),
  })
  .strict()
  .refine((l) => l.bodyBytesInFlight >= l.bodyBytes, {
    message: 'bodyBytesInFlight must be at least bodyBytes (one largest body must fit)',
    path: ['bodyBytesInFlight'],
  });

const sqliteSchema = z
  .object({
    driver: z.literal('sqlite'),
    /** default `<dataDir>/agentport.db`; `:memory:` for a throwaway database */
    file: nonEmptyString.optional(),
    synchronous: z.enum(['normal', 'full']).default('normal'),
    /** task commits' transactions on a thread of their own (ADR 0062); default: on where the machine has 2+ cores */
    commitThread: z.boolean().optional(),
  })
  .strict();

const postgresUrl = nonEmptyString.refine((value) => /^postgres(ql)?:\/\/./.test(value), {
  message: 'must be a postgres:// or postgresql:// URL',
});

const pgSchemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'must be a lowercase SQL identifier (letters, digits, _)' });

const postgresSchema = z
  .object({
    driver: z.literal('postgres'),
    url: postgresUrl,
    /** the PostgreSQL schema holding Agentport's tables (created by migrations) */
    schema: pgSchemaName.default('public'),
    maxConnections: integer(1, 1000).default(10),
    /** apply pending migrations at start; off = `agentport db migrate` must have run */
    migrate: bool.default(true),
  })
  .strict();

/** `sqlite:<path>` and `postgres://…` strings are short forms of the objects. */
const storageSchema = z.preprocess(
  (value, ctx) => {
    if (typeof value !== 'string') return value;
    const text = value.trim();
    if (text.startsWith('sqlite:')) return { driver: 'sqlite', file: text.slice('sqlite:'.length) };
    if (/^postgres(ql)?:\/\//.test(text)) return { driver: 'postgres', url: text };
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'must be "sqlite:<path>", a postgres:// URL, or a mapping with driver: sqlite | postgres',
      fatal: true,
    });
    return z.NEVER;
  },
  z.discriminatedUnion('driver', [sqliteSchema, postgresSchema]),
);

const redisUrl = nonEmptyString.refine((value) => /^rediss?:\/\/./.test(value), {
  message: 'must be a redis:// or rediss:// URL',
});

/** `in-process` and `redis://…` strings are short forms of the objects. */
const busSchema = z.preprocess(
  (value, ctx) => {
    if (typeof value !== 'string') return value;
    const text = value.trim();
    if (text === 'in-process') return { driver: 'in-process' };
    if (/^rediss?:\/\//.test(text)) return { driver: 'redis', url: text };
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be "in-process" or a redis:// URL', fatal: true });
    return z.NEVER;
  },
  z.discriminatedUnion('driver', [
    z.object({ driver: z.literal('in-process') }).strict(),
    z
      .object({
        driver: z.literal('redis'),
        url: redisUrl,
        /** channel prefix: deployments sharing one Redis need different prefixes */
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'letters, digits and : _ . - only (at most 64)' })
          .default('agentport'),
      })
      .strict(),
  ]),
);

/** Distributed mode: how replicas share task execution (used with a postgres store). */
const clusterSchema = z
  .object({
    /** unique per replica; default: host name, pid and a random suffix */
    replicaId: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/, { message: 'letters, digits and . _ - only (at most 100)' })
      .optional(),
    /** how long a replica holds a running task without renewing; a dead replica's tasks are recovered after this */
    leaseTtlMs: duration(1000).default(15_000),
    /** how often each replica looks for tasks whose lease expired */
    sweepIntervalMs: duration(100).default(5_000),
    /**
     * how long a replica holds commits and retries while the database is unreachable, its executors
     * running on; past it they are stopped and their tasks recovered by rule (0: no retry)
     */
    commitRetryMs: duration(0).default(10_000),
  })
  .strict();

const cardOverridesSchema = z
  .object({
    name: nonEmptyString.optional(),
    description: nonEmptyString.optional(),
    version: nonEmptyString.optional(),
    provider: z.object({ organization: nonEmptyString, url: httpBaseUrl }).strict().optional(),
    documentationUrl: uri.optional(),
    iconUrl: uri.optional(),
    defaultInputModes: z.array(nonEmptyString).optional(),
    defaultOutputModes: z.array(nonEmptyString).optional(),
  })
  .strict();

/** An OAuth scope token (RFC 6749 §3.3: printable ASCII without space, `"` or `\\`). */
const scopeName = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, { message: 'must be a scope token (printable ASCII, no spaces or quotes)' });

/**
 * How Agentport proves who it acts for to a remote (docs/auth.md "Acting as the caller").
 * `signed-identity`: a short-lived JWT naming the caller, signed with Agentport's own keys
 * (src/core/keys/caller-identity.ts), sent as `Authorization: Bearer` on each call.
 */
const remoteAuthSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('signed-identity'),
      /** `aud` of the JWT; default: the origin of the remote's URL */
      audience: uri.optional(),
      /** lifetime of each JWT (seconds) */
      ttlSeconds: integer(10, 3600, ' seconds').default(60),
    })
    .strict(),
  /**
   * `oauth`: each user connects their own account at the remote (authorization code + PKCE,
   * RFC 8707 `resource`); their tokens are kept in the vault (auth.vault) and sent on their calls.
   * Without `issuer` the authorization server is discovered from the remote's 401 challenge
   * (RFC 9728, then RFC 8414 / OpenID discovery); without `clientId` Agentport registers itself
   * (RFC 7591).
   */
  z
    .object({
      kind: z.literal('oauth'),
      /** the remote's authorization server, known in advance: no protected-resource discovery */
      issuer: httpBaseUrl.optional(),
      clientId: nonEmptyString.optional(),
      /** a confidential client's secret (client_secret_basic); write it as ${ENV_VAR} */
      clientSecret: nonEmptyString.optional(),
      /** asked for at consent; absent: the scopes of the remote's challenge or metadata */
      scopes: z.array(scopeName).optional(),
      /** the RFC 8707 resource; absent: the one the remote's metadata names, else its URL */
      resource: uri.optional(),
      /** how long a task waits in AUTH_REQUIRED for the user to connect */
      connectWaitMs: duration(1000).default(600_000),
    })
    .strict(),
  /**
   * `token-exchange` (RFC 8693, ADR 0039): the caller's Agentport access token (signed here for
   * the call, `aud` the STS) is exchanged at an external security token service for a token the
   * remote accepts. `tokenEndpoint`, or `issuer` whose RFC 8414 metadata names it.
   */
  z
    .object({
      kind: z.literal('token-exchange'),
      tokenEndpoint: httpBaseUrl.optional(),
      issuer: httpBaseUrl.optional(),
      clientId: nonEmptyString,
      /** the STS client's secret (client_secret_basic); write it as ${ENV_VAR} */
      clientSecret: nonEmptyString,
      audience: nonEmptyString.optional(),
      resource: uri.optional(),
      scopes: z.array(scopeName).optional(),
      subjectTokenTtlSeconds: integer(10, 3600, ' seconds').default(60),
    })
    .strict(),
]);

/** `token-exchange` names its STS one way: the token endpoint itself, or the issuer to discover it from. */
function oneTokenService(v: { auth?: { kind: string; tokenEndpoint?: string; issuer?: string } }, ctx: z.RefinementCtx): void {
  if (v.auth?.kind !== 'token-exchange') return;
  const given = [v.auth.tokenEndpoint, v.auth.issuer].filter((x) => x !== undefined).length;
  if (given !== 1)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['auth'], message: 'token-exchange needs exactly one of tokenEndpoint (the STS token endpoint) or issuer (discovered through its RFC 8414 metadata)' });
}

/** A header that would carry a second credential next to the signed identity. */
function noAuthorizationHeader(v: { headers: Record<string, string>; auth?: unknown }, ctx: z.RefinementCtx): void {
  if (!v.auth) return;
  for (const name of Object.keys(v.headers)) {
    if (name.toLowerCase() === 'authorization') {
      // Reported on `auth`, not on the header: the error quotes the value, and the header's is a secret.
      const kind = (v.auth as { kind?: string }).kind;
      const what = kind === 'oauth' ? "the user's connected token" : kind === 'token-exchange' ? 'the exchanged token' : 'the signed identity';
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['auth'], message: `cannot be used with headers.${name}: ${what} is the Authorization header` });
    }
  }
}

/** An agent backed by a remote MCP server (src/agents/mcp-remote): its tools become skills. */
const mcpRemoteSchema = z
  .object({
    url: httpBaseUrl,
    /** sent on every request to the remote (e.g. `Authorization: Bearer ${TOKEN}`) */
    headers: z.record(nonEmptyString, z.string()).default({}),
    /** `auto` probes 2026-07-28 and falls back to `initialize`; `legacy` skips the probe */
    era: z.enum(['auto', 'modern', 'legacy']).default('auto'),
    /** private/loopback destinations let through the SSRF guard (same forms as push.allowlist) */
    allowlist: z.array(hostOrCidr).default([]),
    /** one tool call, without progress from the remote; the task fails after it */
    callTimeoutMs: duration(1).default(60_000),
    connectTimeoutMs: duration(1).default(10_000),
    /** tools/list is re-read this often (and on notifications/tools/list_changed) */
    refreshIntervalMs: duration(1000).default(300_000),
    auth: remoteAuthSchema.optional(),
  })
  .strict()
  .superRefine(noAuthorizationHeader)
  .superRefine(oneTokenService);

const usecaseName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be lowercase letters, digits, - and _' });

/** A remote A2A agent (src/agents/remote-a2a): proxied on every binding through the core. */
const remoteA2aSchema = z
  .object({
    /** the remote's card, or its agent URL (the card is read beneath it) */
    cardUrl: httpBaseUrl,
    /** sent on every request to the remote (e.g. `Authorization: Bearer ${TOKEN}`) */
    headers: z.record(nonEmptyString, z.string()).default({}),
    /** private/loopback destinations let through the SSRF guard (same forms as push.allowlist) */
    allowlist: z.array(hostOrCidr).default([]),
    connectTimeoutMs: duration(1).default(10_000),
    /** one task's whole exchange with the remote; the task fails after it */
    callTimeoutMs: duration(1).default(300_000),
    /** the remote sending nothing for this long fails the task */
    idleTimeoutMs: duration(1).default(60_000),
    /** A2A versions of the remote's interfaces to use, in the card's order otherwise ('1.0', '0.3') */
    protocolVersions: z
      .array(z.enum(['1.0', '0.3']))
      .min(1)
      .optional(),
    auth: remoteAuthSchema.optional(),
  })
  .strict()
  .superRefine(noAuthorizationHeader)
  .superRefine(oneTokenService);

const agentSchema = z
  .object({
    id: z.string().regex(AGENT_ID_PATTERN, {
      message: `must match ${AGENT_ID_PATTERN.source} (lowercase letters, digits, '-' and '_'; at most 63 characters)`,
    }),
    // Exactly one of builtin/module: checked in relations.ts so that it is reported next to
    // any other problem of the same entry.
    builtin: z.enum(BUILTIN_AGENTS).optional(),
    module: nonEmptyString.optional(),
    mcp: mcpRemoteSchema.optional(),
    remote: remoteA2aSchema.optional(),
    /** a model with instructions whose tools are other hosted agents (src/agents/llm) */
    llm: llmSchema.optional(),
    card: cardOverridesSchema.optional(),
    streaming: bool.optional(),
    pushNotifications: bool.optional(),
    extendedCard: bool.optional(),
    skills: z
      .record(
        nonEmptyString,
        z
          .object({
            visibility: z.enum(['public', 'extended']).optional(),
            // MCP tool annotations of this skill's tool (src/bindings/mcp/tools/agent-tools.ts)
            annotations: z.object({ readOnlyHint: bool.optional(), destructiveHint: bool.optional(), idempotentHint: bool.optional(), openWorldHint: bool.optional() }).strict().optional(),
            // scopes a caller needs, beyond a2a:publish / mcp:tools, to use this skill (src/core/authz)
            scopes: z.array(scopeName).optional(),
            // cost units charged per call and per token (src/core/usage; docs/usage.md)
            cost: skillCostSchema.optional(),
          })
          .strict(),
      )
      .optional(),
    requiredExtensions: z.array(uri).optional(),
    /** `extended`: listed and its card served only to callers holding a2a:discover (src/core/authz) */
    visibility: z.enum(['public', 'extended']).optional(),
    /** the usecase the agent belongs to: callers bound to another usecase do not see it */
    usecase: usecaseName.optional(),
    /** agent-specific settings, validated by the agent itself (e.g. the Table Expert's datasets) */
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const apiKeySchema = z
  .object({
    key: z.string().min(16, 'must be at least 16 characters'),
    subject: nonEmptyString,
    scopes: z.array(nonEmptyString).default([]),
  })
  .strict();

/** Issuer identifiers are compared byte for byte with `iss` (RFC 8414 §3.3), so no trailing-slash cleanup. */
const issuerUrl = nonEmptyString.refine((value) => /^https?:\/\/[^\s#]+$/i.test(value) && URL.canParse(value), {
  message: 'must be an absolute http:// or https:// URL without fragment, as the issuer writes it in `iss`',
});
const audienceSchema = z.union([nonEmptyString, z.array(nonEmptyString).min(1)]);
export const JWT_ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

const externalIssuerSchema = z
  .object({
    issuer: issuerUrl,
    audience: audienceSchema,
    jwksUri: issuerUrl.optional(),
    algorithms: z.array(z.enum(JWT_ASYMMETRIC_ALGS)).min(1).optional(),
  })
  .strict();

const sharedSecretSchema = z
  .object({
    secret: z.string().min(32, 'must be at least 32 characters (use ${ENV_VAR} to keep it out of the file)'),
    issuer: nonEmptyString.optional(),
    audience: audienceSchema.optional(),
  })
  .strict();

/** A key of the token vault (ADR 0035): 32 random bytes, base64 (`openssl rand -base64 32`). */
const vaultKeySchema = z
  .object({
    /** stored beside each value it seals; a new id for every new key */
    id: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, { message: 'must be 1 to 32 letters, digits, - or _' }),
    secret: z.string().refine((v) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes in base64 (openssl rand -base64 32); use ${ENV_VAR} to keep it out of the file',
    }),
  })
  .strict();

/** The token vault: tokens Agentport holds for remotes, sealed with the first key (ADR 0035). */
const vaultSchema = z
  .object({
    /** the first seals; the others (older keys) still open what they sealed */
    keys: z
      .array(vaultKeySchema)
      .min(1)
      .refine((keys) => new Set(keys.map((k) => k.id)).size === keys.length, { message: 'key ids must be unique' }),
  })
  .strict();

const authSchema = z
  .object({
    mode: z.enum(['required', 'none']).default('required'),
    /** mode none on a non-loopback host: refused at start unless this is true */
    allowInsecureNone: bool.optional(),
    /** binds every caller to this usecase (tools and Table Expert data of other usecases are hidden) */
    forceUsecase: usecaseName.optional(),
    /** `narrow` (default): intersected with the credential's usecase; `override`: replaces it */
    forceUsecaseMode: z.enum(['narrow', 'override']).optional(),
    oauth: oauthSchema.default({}),
    apiKeys: z.array(apiKeySchema).default([]),
    extendedCard: bool.default(true),
    anonymousExtendedCard: bool.default(false),
    issuers: z.array(externalIssuerSchema).optional(),
    sharedSecret: sharedSecretSchema.optional(),
    audience: audienceSchema.optional(),
    clockSkewSeconds: integer(0, 600).optional(),
    vault: vaultSchema.optional(),
  })
  .strict();

const pushSchema = z
  .object({
    allowHttp: bool.default(false),
    allowlist: z.array(hostOrCidr).default([]),
    signJwt: bool.default(false),
    /** /readyz answers 503 while the oldest pending delivery is older than this; absent: the backlog is reported only */
    maxOutboxAge: duration(1000).optional(),
  })
  .strict();

/** The MCP face (src/bindings/mcp). */
const mcpSchema = z
  .object({
    /** list_agents, send_message, get_task, cancel_task on /mcp (src/bindings/mcp/tools/generic-tools.ts) */
    // Off by default: the tool list existing connectors approved stays as it was, and models do not
    // have to choose between send_message and the per-skill tool that does the same.
    genericTools: bool.default(false),
    /** a test-only module adding tools/resources/prompts to /mcp (src/bindings/mcp/surface/fixture-module.ts); relative to the file */
    fixtureModule: nonEmptyString.optional(),
    /** replaced by fixtureModule: any value is an error that says so */
    conformanceFixtures: z
      .unknown()
      .refine(() => false, 'replaced by mcp.fixtureModule, the path of a test-only MCP fixture module (the conformance fixtures: test/support/mcp-conformance/fixture-module.ts); remove this key')
      .optional(),
    /** initialize and tools/list answered without credentials, as the replaced service did (docs/mcp.md); off by default */
    publicDiscovery: bool.default(false),
  })
  .strict();

const cardsSchema = z
  .object({
    sign: bool.default(true),
    maxAgeSeconds: integer(0).default(300),
    /** headerless card requests get the v1.0 card with the v0.3 members beside it (docs/compliance.md) */
    v03Fields: bool.default(true),
  })
  .strict();

export const configFileSchema = z
  .object({
    server: serverSchema.default({}),
    limits: limitsSchema.default({}),
    storage: storageSchema.optional(),
    bus: busSchema.default({ driver: 'in-process' }),
    cluster: clusterSchema.default({}),
    agents: z
      .array(agentSchema)
      .min(1, `must list at least one agent (leave the key out for the default agents: ${DEFAULT_AGENTS.map((a) => a.id).join(', ')})`)
      .default(DEFAULT_AGENTS),
    primaryAgent: nonEmptyString.optional(),
    auth: authSchema.default({}),
    push: pushSchema.default({}),
    cards: cardsSchema.default({}),
    mcp: mcpSchema.default({}),
    usage: usageSchema.default({}),
    quotas: quotasSchema,
    audit: auditSchema.default({}),
    metrics: metricsSchema.default({}),
    tracing: tracingSchema.default({}),
    logging: loggingSchema.default({}),
  })
  .strict();

/** The file after validation and defaults, before paths and derived values are resolved. */
export type ConfigFile = z.output<typeof configFileSchema>;
export type AgentEntry = z.output<typeof agentSchema>;

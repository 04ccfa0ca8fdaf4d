/**
 * The resolved configuration: what every other part of the server reads. Defaults are applied,
 * `${VAR}` references substituted, paths absolute, public URLs derived. Nothing downstream looks at
 * the YAML file, the environment or the CLI flags again.
 */
import type { LOG_LEVELS } from './primitives.js';
import type { BUILTIN_AGENTS } from './schema.js';
import type { AuditConfig, QuotaConfig, SkillCostConfig, UsageConfig } from './usage-schema.js';
import type { MetricsConfig } from './observability-schema.js';
import type { TracingConfig } from './observability-schema.js';

export type { AuditConfig, QuotaConfig, SkillCostConfig, UsageConfig } from './usage-schema.js';
export type { MetricsConfig } from './observability-schema.js';
import type { LoggingConfig } from './observability-schema.js';
export type { LoggingConfig, LogModule } from './observability-schema.js';
export type { TracingConfig } from './observability-schema.js';

export type LogLevel = (typeof LOG_LEVELS)[number];
export type BuiltinAgentName = (typeof BUILTIN_AGENTS)[number];

export interface Config {
  /** absolute path of the file that was read; undefined when running on defaults */
  file?: string;
  /** absolute directory that relative paths were resolved against (the file's, else the cwd) */
  baseDir: string;
  server: ServerConfig;
  limits: LimitsConfig;
  storage: StorageConfig;
  bus: BusConfig;
  cluster: ClusterConfig;
  /** at least one; ids are unique */
  agents: AgentConfig[];
  /** id of the agent whose card is also served at /.well-known/agent-card.json */
  primaryAgent: string;
  auth: AuthConfig;
  push: PushConfig;
  cards: CardsConfig;
  mcp: McpConfig;
  usage: UsageConfig;
  quotas: QuotaConfig[];
  audit: AuditConfig;
  /** Prometheus metrics at /metrics (docs/observability.md) */
  metrics: MetricsConfig;
  /** access log and per-module log levels (docs/observability.md#logs) */
  logging: LoggingConfig;
  /** OpenTelemetry traces (src/observability/tracing) */
  tracing: TracingConfig;
}

export interface ServerConfig {
  host: string;
  /** 0 = ephemeral; see withListeningPorts */
  port: number;
  /** base URL used in cards, no trailing slash */
  publicUrl: string;
  /** true when publicUrl came from host:port rather than from the file */
  publicUrlDerived: boolean;
  grpc: GrpcConfig;
  /** absolute */
  dataDir: string;
  logLevel: LogLevel;
}

export interface GrpcConfig {
  enabled: boolean;
  /** defaults to server.host */
  host: string;
  /** 0 = ephemeral */
  port: number;
  /** `host:port` used in cards */
  publicUrl: string;
  publicUrlDerived: boolean;
}

export interface LimitsConfig {
  bodyBytes: number;
  headerBytes: number;
  requestTimeoutMs: number;
  blockingSendTimeoutMs: number;
  maxHistoryLength: number;
  sseKeepAliveMs: number;
  /** streams (SendStreamingMessage + SubscribeToTask) open on one task at a time */
  maxConcurrentStreamsPerTask: number;
  pushTimeoutMs: number;
  pushMaxAttempts: number;
  /** server-wide budget of request-body bytes being read at once (503 + Retry-After past it) */
  bodyBytesInFlight: number;
  /** per-body read deadline (408 past it) */
  bodyReadTimeoutMs: number;
  /** SendMessage deduplicated per (agent, owner, messageId) (issue 19 C1) */
  deduplicateMessageIds: boolean;
}

export type StorageConfig =
  /** file is absolute, or ":memory:" */
  { driver: 'sqlite'; file: string; synchronous: 'normal' | 'full'; commitThread: boolean } | { driver: 'postgres'; url: string; schema: string; maxConnections: number; migrate: boolean };

export type BusConfig = { driver: 'in-process' } | { driver: 'redis'; url: string; prefix: string };

export interface ClusterConfig {
  /** this replica's id (generated when not configured) */
  replicaId: string;
  leaseTtlMs: number;
  sweepIntervalMs: number;
  commitRetryMs: number;
}

export interface AgentCardOverrides {
  name?: string;
  description?: string;
  version?: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
}

interface AgentConfigBase {
  id: string;
  card: AgentCardOverrides;
  /** undefined = what the agent's own card says */
  streaming?: boolean;
  pushNotifications?: boolean;
  /** whether the agent offers an extended card; defaults to auth.extendedCard */
  extendedCard: boolean;
  /**
   * skill id → visibility override ('extended' = only in the extended card) and the hints of the
   * skill's MCP tool (each overrides the binding's default for the agent)
   */
  skills: Record<string, SkillConfig>;
  /** extension URIs declared `required: true` in the card */
  requiredExtensions: string[];
  /** `extended`: listed, and its cards served, only to callers holding a2a:discover; default public */
  visibility?: 'public' | 'extended';
  /** the usecase this agent belongs to; absent: it serves every usecase (src/core/authz) */
  usecase?: string;
  /** agent-specific settings, validated by the agent */
  options: Record<string, unknown>;
}

export interface SkillConfig {
  visibility?: 'public' | 'extended';
  annotations?: SkillAnnotationsConfig;
  /** scopes needed to use this skill, on top of a2a:publish (A2A) or mcp:tools (MCP) */
  scopes?: string[];
  /** cost units per call and per token (docs/usage.md) */
  cost?: SkillCostConfig;
}

/** MCP ToolAnnotations hints (spec 2025-03-26+): advisory, for clients that gate confirmations. */
export interface SkillAnnotationsConfig {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * An agent is built in, an ES module (default export or `agent` export: an AgentDefinition), or a
 * remote MCP server whose tools become its skills.
 */
export type AgentConfig = AgentConfigBase &
  (
    | { builtin: BuiltinAgentName; module?: undefined; mcp?: undefined; remote?: undefined; llm?: undefined }
    | { module: string; builtin?: undefined; mcp?: undefined; remote?: undefined; llm?: undefined }
    | { mcp: McpRemoteConfig; builtin?: undefined; module?: undefined; remote?: undefined; llm?: undefined }
    | { remote: RemoteA2AConfig; builtin?: undefined; module?: undefined; mcp?: undefined; llm?: undefined }
    | { llm: LlmAgentConfig; builtin?: undefined; module?: undefined; mcp?: undefined; remote?: undefined }
  );

/** `agents[].llm`: a model with instructions whose tools are hosted agents (src/agents/llm). */
export interface LlmAgentConfig {
  provider: 'openai' | 'anthropic';
  /** without a trailing slash */
  baseUrl: string;
  model: string;
  /** `${ENV}` already substituted; never logged */
  apiKey?: string;
  headers: Record<string, string>;
  instructions: string;
  /** ids of hosted agents offered to the model as tools */
  tools: string[];
  maxSteps: number;
  maxOutputTokens: number;
  tokenBudget?: number;
  timeoutMs: number;
  callTimeoutMs: number;
  maxToolResultChars: number;
  maxRetries: number;
  temperature?: number;
  askUser: boolean;
  skills?: Array<{ id: string; name: string; description: string; tags: string[]; examples?: string[] }>;
  price?: SkillCostConfig;
}

/** `agents[].remote.auth`, `agents[].mcp.auth`: how Agentport proves whom it acts for (docs/auth.md). */
export type RemoteAuthConfig = SignedIdentityAuthConfig | RemoteOAuthConfig | TokenExchangeAuthConfig;

export interface SignedIdentityAuthConfig {
  kind: 'signed-identity';
  /** `aud` of the JWT; absent: the origin of the remote's URL */
  audience?: string;
  ttlSeconds: number;
}

/** Per-user OAuth to the remote (ADR 0035): each user connects their own account. */
export interface RemoteOAuthConfig {
  kind: 'oauth';
  /** the authorization server, known in advance (no protected-resource discovery) */
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  resource?: string;
  connectWaitMs: number;
}

/**
 * The caller's Agentport token exchanged at an external security token service (RFC 8693, ADR
 * 0039): the remote gets a token its own STS issued for the caller, never Agentport's.
 */
export interface TokenExchangeAuthConfig {
  kind: 'token-exchange';
  /** the STS's token endpoint; or `issuer`, whose RFC 8414 metadata names it */
  tokenEndpoint?: string;
  issuer?: string;
  clientId: string;
  clientSecret: string;
  /** RFC 8693 `audience` of the token asked for */
  audience?: string;
  /** RFC 8693 / RFC 8707 `resource` of the token asked for */
  resource?: string;
  scopes?: string[];
  /** lifetime of the subject token Agentport signs for the caller (seconds) */
  subjectTokenTtlSeconds: number;
}

/** `agents[].remote`: a remote A2A agent (any version, any binding) proxied through the core. */
export interface RemoteA2AConfig {
  cardUrl: string;
  /** sent on every request to the remote; `${ENV}` already substituted */
  headers: Record<string, string>;
  /** private destinations allowed through the SSRF guard */
  allowlist: string[];
  connectTimeoutMs: number;
  callTimeoutMs: number;
  idleTimeoutMs: number;
  /** only the remote's interfaces of these A2A versions; absent: any, in the card's order */
  protocolVersions?: Array<'1.0' | '0.3'>;
  auth?: RemoteAuthConfig;
}

/** `agents[].mcp`: a remote MCP server (Streamable HTTP, either era) served as an A2A agent. */
export interface McpRemoteConfig {
  url: string;
  /** sent on every request to the remote; `${ENV}` already substituted */
  headers: Record<string, string>;
  era: 'auto' | 'modern' | 'legacy';
  /** private destinations allowed through the SSRF guard */
  allowlist: string[];
  callTimeoutMs: number;
  connectTimeoutMs: number;
  refreshIntervalMs: number;
  /** the caller's signed identity on tool calls, Agentport's on the session's own requests (ADR 0034) */
  auth?: RemoteAuthConfig;
}

/** `mcp`: the MCP face. */
export interface McpConfig {
  /** list_agents / send_message / get_task / cancel_task on /mcp */
  genericTools: boolean;
  /** absolute path of a test-only module adding tools/resources/prompts to /mcp (src/bindings/mcp/surface/fixture-module.ts); absent by default */
  fixtureModule?: string;
  /** initialize (and the handshake around it) and tools/list answered without credentials; off by default */
  publicDiscovery: boolean;
}

export interface ApiKeyConfig {
  key: string;
  subject: string;
  scopes: string[];
}

export interface AuthConfig {
  /**
   * `required` (default): every operation needs a credential with the right scope; only public
   * discovery documents are anonymous. `none`: authentication off (local experiments, tests of
   * other features); every caller is the anonymous principal with every scope.
   */
  mode: 'required' | 'none';
  /** start in mode none on a non-loopback host anyway (`--allow-insecure`) */
  allowInsecureNone?: boolean;
  /** every caller is bound to this usecase (its tools and Table Expert data only) */
  forceUsecase?: string;
  /** `narrow` (default): a forced usecase intersects with the credential's; `override`: replaces it */
  forceUsecaseMode?: 'narrow' | 'override';
  /** Agentport's own OAuth 2.1 authorization server (src/auth/oauth) */
  oauth: OAuthConfig;
  apiKeys: ApiKeyConfig[];
  extendedCard: boolean;
  /**
   * Serve extended cards to unauthenticated callers. Off by default: spec §13.3 requires
   * authentication. The TCK profile turns it on because the TCK calls without credentials.
   */
  anonymousExtendedCard: boolean;
  // The token keys below are present only when configured, so a config without them resolves
  // to the same object as before they existed; readers apply the defaults (DEFAULT_CLOCK_SKEW_SECONDS).
  /** external token issuers (OIDC discovery or an explicit JWKS URL) */
  issuers?: ExternalIssuerConfig[];
  /** HS256 tokens minted by the deployment itself */
  sharedSecret?: SharedSecretConfig;
  /**
   * accepted `aud` values of Agentport-issued tokens; absent: the server's public URL (known only
   * once the listener is bound when the port is 0)
   */
  audience?: string[];
  /** leeway for exp/nbf/iat, in seconds; default DEFAULT_CLOCK_SKEW_SECONDS */
  clockSkewSeconds?: number;
  /** keys of the token vault (ADR 0035); required when a remote has `auth: oauth` */
  vault?: VaultConfig;
}

export interface VaultConfig {
  /** the first seals, all open; `secret` is 32 bytes in base64 */
  keys: Array<{ id: string; secret: string }>;
}

export type { OAuthConfig } from './oauth-schema.js';
import type { OAuthConfig } from './oauth-schema.js';

export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

export interface ExternalIssuerConfig {
  /** compared exactly with `iss` */
  issuer: string;
  /** accepted `aud` values (any one suffices) */
  audience: string[];
  /** skips OIDC discovery when set */
  jwksUri?: string;
  /** allowed `alg` values; default RS256 and ES256 */
  algorithms: string[];
}

export interface SharedSecretConfig {
  secret: string;
  issuer?: string;
  audience?: string[];
}

export interface PushConfig {
  allowHttp: boolean;
  /** CIDRs, IP addresses, host names or *.suffix patterns exempt from the SSRF guard */
  allowlist: string[];
  signJwt: boolean;
  /** ms; /readyz is not ready while the oldest pending push delivery is older (absent: report-only) */
  maxOutboxAge?: number;
}

export interface CardsConfig {
  sign: boolean;
  maxAgeSeconds: number;
  /** requests without `A2A-Version` get the card both v0.3 and v1.0 clients read; false: the exact v1.0 card */
  v03Fields: boolean;
}

/**
 * From the validated file to the resolved Config: relative paths become absolute (against the
 * config file's directory), public URLs are derived from host and port when not given, per-agent
 * settings fall back to the global ones.
 */
import { copySources } from './config-sources.js';
import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AgentConfig, Config, LlmAgentConfig, StorageConfig } from './config.js';
import type { ConfigProblem } from './errors.js';
import type { AgentEntry, ConfigFile } from './schema.js';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
}

/**
 * The host as it appears in a URL. A wildcard bind address is not something a client can dial;
 * `localhost` is right for local use, and anything else needs an explicit publicUrl.
 */
function urlHost(host: string): string {
  if (isWildcardHost(host)) return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function httpUrlFor(host: string, port: number): string {
  return `http://${urlHost(host)}:${port}`;
}

function grpcAddressFor(host: string, port: number): string {
  return `${urlHost(host)}:${port}`;
}

export function resolveConfig(file: ConfigFile, baseDir: string, configFile?: string): { config: Config; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const { server } = file;
  const dataDir = path.resolve(baseDir, server.dataDir);
  const grpcHost = server.grpc.host ?? server.host;

  const storage: StorageConfig =
    file.storage?.driver === 'postgres'
      ? { driver: 'postgres', url: file.storage.url, schema: file.storage.schema, maxConnections: file.storage.maxConnections, migrate: file.storage.migrate }
      : sqliteStorage(resolveSqliteFile(file.storage?.file, baseDir, dataDir), file.storage?.synchronous ?? 'normal', file.storage?.commitThread);

  const agents = file.agents.map((entry, index) => {
    const agent = resolveAgent(entry, baseDir, file.auth.extendedCard);
    if (agent.module !== undefined && !existsSync(agent.module)) {
      problems.push({ path: `agents[${index}].module`, message: `file not found: ${agent.module} (relative paths start at ${baseDir})` });
    }
    return agent;
  });
  // conformanceFixtures is refused by the schema; the fixture module loads like agents[].module.
  const { conformanceFixtures: _replaced, fixtureModule, ...mcp } = file.mcp;
  const mcpFixtureModule = fixtureModule === undefined ? undefined : path.resolve(baseDir, fixtureModule);
  if (mcpFixtureModule !== undefined && !existsSync(mcpFixtureModule)) {
    problems.push({ path: 'mcp.fixtureModule', message: `file not found: ${mcpFixtureModule} (relative paths start at ${baseDir})` });
  }

  const config: Config = {
    ...(configFile === undefined ? {} : { file: configFile }),
    baseDir,
    server: {
      host: server.host,
      port: server.port,
      publicUrl: server.publicUrl ?? httpUrlFor(server.host, server.port),
      publicUrlDerived: server.publicUrl === undefined,
      grpc: {
        enabled: server.grpc.enabled,
        host: grpcHost,
        port: server.grpc.port,
        publicUrl: server.grpc.publicUrl ?? grpcAddressFor(grpcHost, server.grpc.port),
        publicUrlDerived: server.grpc.publicUrl === undefined,
      },
      dataDir,
      logLevel: server.logLevel,
    },
    limits: { ...file.limits },
    storage,
    bus: file.bus.driver === 'redis' ? { driver: 'redis', url: file.bus.url, prefix: file.bus.prefix } : { driver: 'in-process' },
    cluster: {
      replicaId: file.cluster.replicaId ?? defaultReplicaId(),
      leaseTtlMs: file.cluster.leaseTtlMs,
      sweepIntervalMs: file.cluster.sweepIntervalMs,
      commitRetryMs: file.cluster.commitRetryMs,
    },
    agents,
    primaryAgent: file.primaryAgent ?? agents[0]!.id,
    auth: {
      mode: file.auth.mode,
      ...(file.auth.allowInsecureNone === undefined ? {} : { allowInsecureNone: file.auth.allowInsecureNone }),
      ...(file.auth.forceUsecase === undefined ? {} : { forceUsecase: file.auth.forceUsecase }),
      ...(file.auth.forceUsecaseMode === undefined ? {} : { forceUsecaseMode: file.auth.forceUsecaseMode }),
      oauth: { ...file.auth.oauth },
      apiKeys: file.auth.apiKeys.map((k) => ({ key: k.key, subject: k.subject, scopes: [...k.scopes] })),
      extendedCard: file.auth.extendedCard,
      anonymousExtendedCard: file.auth.anonymousExtendedCard,
      ...(file.auth.vault === undefined ? {} : { vault: { keys: file.auth.vault.keys.map((k) => ({ id: k.id, secret: k.secret })) } }),
      ...(file.auth.issuers === undefined
        ? {}
        : {
            issuers: file.auth.issuers.map((i) => ({
              issuer: i.issuer,
              audience: asList(i.audience),
              ...(i.jwksUri === undefined ? {} : { jwksUri: i.jwksUri }),
              algorithms: [...(i.algorithms ?? ['RS256', 'ES256'])],
            })),
          }),
      ...(file.auth.sharedSecret === undefined
        ? {}
        : {
            sharedSecret: {
              secret: file.auth.sharedSecret.secret,
              ...(file.auth.sharedSecret.issuer === undefined ? {} : { issuer: file.auth.sharedSecret.issuer }),
              ...(file.auth.sharedSecret.audience === undefined ? {} : { audience: asList(file.auth.sharedSecret.audience) }),
            },
          }),
      ...(file.auth.audience === undefined ? {} : { audience: asList(file.auth.audience) }),
      ...(file.auth.clockSkewSeconds === undefined ? {} : { clockSkewSeconds: file.auth.clockSkewSeconds }),
    },
    push: { ...file.push, allowlist: [...file.push.allowlist] },
    cards: { ...file.cards },
    mcp: { ...mcp, ...(mcpFixtureModule === undefined ? {} : { fixtureModule: mcpFixtureModule }) },
    usage: { ...file.usage },
    metrics: { ...file.metrics },
    tracing: { ...file.tracing },
    quotas: file.quotas.map((q) => ({ ...q, per: [...q.per], match: { ...q.match } })),
    audit: { ...file.audit, ...(file.audit.webhook ? { webhook: { url: file.audit.webhook.url, headers: { ...file.audit.webhook.headers } } } : {}) },
    logging: { accessLog: file.logging.accessLog, levels: { ...file.logging.levels } },
  };
  return { config, problems };
}

/** `audience` may be written as one string or a list. */
function asList(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? [value] : [...value];
}

/** Host name, pid and a random suffix: unique across restarts, readable in logs and lease rows. */
function defaultReplicaId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 60) || 'host';
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

function resolveSqliteFile(file: string | undefined, baseDir: string, dataDir: string): string {
  if (file === undefined || file === '') return path.join(dataDir, 'agentport.db');
  if (file === ':memory:') return file;
  return path.resolve(baseDir, file);
}

function resolveAgent(entry: AgentEntry, baseDir: string, extendedCardDefault: boolean): AgentConfig {
  const common = {
    id: entry.id,
    card: entry.card ?? {},
    ...(entry.streaming === undefined ? {} : { streaming: entry.streaming }),
    ...(entry.pushNotifications === undefined ? {} : { pushNotifications: entry.pushNotifications }),
    extendedCard: entry.extendedCard ?? extendedCardDefault,
    skills: entry.skills ?? {},
    requiredExtensions: entry.requiredExtensions ?? [],
    ...(entry.visibility === undefined ? {} : { visibility: entry.visibility }),
    ...(entry.usecase === undefined ? {} : { usecase: entry.usecase }),
    options: entry.options ?? {},
  };
  // relations.ts guarantees exactly one of the two by the time we get here
  if (entry.remote !== undefined)
    return {
      ...common,
      remote: { ...entry.remote, headers: { ...entry.remote.headers }, allowlist: [...entry.remote.allowlist], ...(entry.remote.protocolVersions ? { protocolVersions: [...entry.remote.protocolVersions] } : {}) },
    };
  if (entry.llm !== undefined) return { ...common, llm: resolveLlm(entry.llm) };
  if (entry.mcp !== undefined) return { ...common, mcp: { ...entry.mcp, headers: { ...entry.mcp.headers }, allowlist: [...entry.mcp.allowlist] } };
  return entry.module !== undefined ? { ...common, module: path.resolve(baseDir, entry.module) } : { ...common, builtin: entry.builtin ?? 'echo' };
}

const LLM_DEFAULT_BASE_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' } as const;

function resolveLlm(e: NonNullable<AgentEntry['llm']>): LlmAgentConfig {
  const { baseUrl, apiKey, skills, price, temperature, tokenBudget, ...rest } = e;
  return {
    ...rest,
    baseUrl: (baseUrl ?? LLM_DEFAULT_BASE_URL[e.provider]).replace(/\/+$/, ''),
    headers: { ...e.headers },
    tools: [...e.tools],
    ...(apiKey ? { apiKey } : {}),
    ...(skills ? { skills: skills.map((s) => ({ ...s, tags: [...s.tags], ...(s.examples ? { examples: [...s.examples] } : {}) })) } : {}),
    ...(price ? { price: { ...price } } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
  };
}

/**
 * The config with the ports the listeners actually bound (useful with port 0). Derived public URLs
 * follow the bound ports; URLs given in the file are left alone.
 */
export function withListeningPorts(config: Config, ports: { http?: number; grpc?: number }): Config {
  const httpPort = ports.http ?? config.server.port;
  const grpcPort = ports.grpc ?? config.server.grpc.port;
  const { server } = config;
  const bound: Config = {
    ...config,
    server: {
      ...server,
      port: httpPort,
      publicUrl: server.publicUrlDerived ? httpUrlFor(server.host, httpPort) : server.publicUrl,
      grpc: {
        ...server.grpc,
        port: grpcPort,
        publicUrl: server.grpc.publicUrlDerived ? grpcAddressFor(server.grpc.host, grpcPort) : server.grpc.publicUrl,
      },
    },
  };
  copySources(config, bound);
  return bound;
}

/**
 * The commit thread (ADR 0062) is on by default where a second core can run it: on one core its
 * wake-ups take the event loop's time. Never for ':memory:' (a second connection would open
 * another database).
 */
function sqliteStorage(file: string, synchronous: 'normal' | 'full', commitThread: boolean | undefined): StorageConfig {
  return { driver: 'sqlite', file, synchronous, commitThread: file !== ':memory:' && (commitThread ?? availableParallelism() > 1) };
}

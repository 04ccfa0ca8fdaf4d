export type {
  AgentCardOverrides,
  AgentConfig,
  ApiKeyConfig,
  AuthConfig,
  BuiltinAgentName,
  BusConfig,
  CardsConfig,
  Config,
  GrpcConfig,
  LimitsConfig,
  LlmAgentConfig,
  LogLevel,
  LoggingConfig,
  LogModule,
  PushConfig,
  ServerConfig,
  StorageConfig,
} from './config.js';
export { hasSources, sourceFile, sourceOf, type ValueSource } from './config-sources.js';
export { ConfigError, type ConfigProblem } from './errors.js';
export { CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, loadConfig, parseConfig, type ConfigOverrides, type LoadConfigOptions } from './load.js';
export { LOG_MODULES } from './observability-schema.js';
export { AGENT_ID_PATTERN, LOG_LEVELS, parseBytes, parseDuration } from './primitives.js';
export { redactUrl, urlOriginAndPath } from './redact-url.js';
export { isWildcardHost, withListeningPorts } from './resolve.js';
export { BUILTIN_AGENTS, configFileSchema } from './schema.js';

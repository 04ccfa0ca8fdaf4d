export { AccessLog, type AccessLogCall, type AccessLogEnd } from './access-log.js';
export { configSecrets } from './config-secrets.js';
export { createServerLoggers, type ServerLoggerOptions, type ServerLoggers } from './create-logger.js';
export { LOG_TEE_ENV, LOG_TEE_LEVEL_ENV, openLogTee, type LogTee } from './log-tee.js';
export { REDACTED, REDACT_PATHS, SecretScrubber } from './redaction.js';

/**
 * Secrets the test fixtures give servers, which no log line may hold, and the shapes of secrets
 * made at run time (stored API keys, tokens). Searched for in all log output of a test run
 * (log-secrets-check.ts) and by test/observability/logging/secrets-in-logs.test.ts.
 */
export const KNOWN_SECRETS: readonly string[] = [
  // configured API keys
  'admin-key-for-the-management-api-tests',
  'admin-key-for-the-scope-ceiling-test',
  'admin-key-for-the-session-tests-0001',
  'admin-key-for-the-user-deletion-test',
  'child-server-key-0123456789abcdef',
  'cli-commands-key-0123456789',
  'client-test-key-0123456789',
  'compat-key-0123456789abcdef',
  'deploy-test-admin-key-0123456789',
  'golden-key-0123456789abcdef',
  'k-discovery-0123456789abcdef',
  'k-stream-0123456789abcdef',
  'test-key-0123456789abcdef',
  'test-key-grpc-v03-0123456789abcdef',
  'test-key-headerless-0123456789abcdef',
  'test-key-v03-0123456789abcdef',
  'test-key-v03-client-0123456789abcdef',
  'test-key-v03-compat-0123456789abcdef',
  'usage-records-test-key-0123456789',
  'key-alice-0123456789abcdef',
  'key-bob-0123456789abcdef00',
  'tools-key-0123456789abcdef',
  'reader-key-0123456789',
  'access-log-test-key-0001',
  // shared secrets, passwords
  'a-shared-secret-of-at-least-32-characters!',
  // (not 'SECRET-db-password-hunter2' of executor-failures.test.ts: the client sends it in a message
  // and the probe agent throws it; the server logs an executor's error for its operator, and the
  // test checks it never reaches a client)
  'correct horse battery staple',
  'a long admin password 43',
  'a long admin password 44',
  'a long admin password 46',
  // the secrets of test/observability/logging/secrets-in-logs.test.ts
  'Pg-Url-Password-8c1f',
  'Redis-Url-Password-5e2a',
  'Config-Admin-Key-3b7d-0001',
  'Shared-Jwt-Secret-9a4c-0123456789abcdef',
  'Audit-Webhook-Token-77f0',
  'Remote-Card-Url-Pw-2d9e',
  'Remote-Agent-Header-Token-41aa',
  'Mcp-Url-Password-6c3b',
  'Mcp-Remote-Bearer-Token-0f9e',
  'Upstream-Client-Secret-1b8d',
  'Push-Notification-Token-5d21',
  'Push-Auth-Credentials-c4e7',
  'Cookie-Value-Secret-a9b3',
  'Wrong-Password-Attempt-88e1',
  'Wrong-Client-Secret-3f1c',
];

/** Secrets made at run time, recognised by their shape; a redacted one reads `[redacted]`. */
export const SECRET_SHAPES: ReadonlyArray<readonly [string, RegExp]> = [
  ['an API key', /ap_[0-9a-f]{16}_(?!\[redacted\])[A-Za-z0-9_-]{8,}/],
  ['a JWT', /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\./],
  ['a bearer token', /\bBearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{6,}/i],
  ['a URL password', /[a-z][a-z0-9+.-]*:\/\/[^/\s:@"]*:(?!\[redacted\]@)[^/\s@"]+@/i],
];

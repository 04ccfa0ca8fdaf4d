/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the bodies of Agentport's HTTP routes outside
 * the A2A and MCP protocol endpoints. Documents of other specifications (A2A cards, JWKS, MCP
 * tools) are described by the fields clients rely on, the rest left open, as those specifications
 * grow fields.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const strings: Schema = { type: 'array', items: str };
const num: Schema = { type: 'number' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const object = (properties: Record<string, Schema>, required: string[] = [], description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  ...(required.length ? { required } : {}),
});

const v01Part: Schema = {
  description: 'A part of a message or artifact (A2A v0.1: the kind is in `type`)',
  oneOf: [
    object({ type: { const: 'text' }, text: str, metadata: { type: 'object' } }, ['type', 'text']),
    object({ type: { const: 'file' }, file: object({ name: str, mimeType: str, bytes: str, uri: str }), metadata: { type: 'object' } }, ['type', 'file']),
    object({ type: { const: 'data' }, data: { type: 'object' }, metadata: { type: 'object' } }, ['type', 'data']),
  ],
};

export const SCHEMAS: Record<string, Schema> = {
  Error: object(
    {
      error: object(
        {
          code: { type: 'integer', description: 'the HTTP status' },
          status: { type: 'string', description: 'the gRPC status name (NOT_FOUND, PERMISSION_DENIED, …)' },
          message: str,
          details: { type: 'array', items: { type: 'object' } },
        },
        ['code', 'status', 'message'],
      ),
    },
    ['error'],
    'Every refusal of these routes: the A2A HTTP+JSON error shape (google.rpc.Status)',
  ),
  OAuthError: object({ error: str, error_description: str }, ['error'], 'An OAuth-style error (RFC 6749 §5.2 shape), on the routes of the replaced service\u2019s OAuth server'),
  AgentCard: object({ name: str, description: str, version: str, skills: { type: 'array', items: { type: 'object' } } }, ['name'], 'An A2A Agent Card (v1.0, or v0.3 where the path or `A2A-Version: 0.3` asks)'),
  AgentSummary: object({ id: str, name: str, description: str, url: str, cardUrl: str, primary: { type: 'boolean' } }, ['id', 'name', 'url', 'cardUrl', 'primary']),
  AgentList: object({ agents: { type: 'array', items: ref('AgentSummary') } }, ['agents']),
  AgentCardList: { type: 'array', items: ref('AgentCard'), description: 'The agents as cards (the replaced service\u2019s registry answer)' },
  Jwks: object({ keys: { type: 'array', items: object({ kty: str, kid: str }, ['kty']) } }, ['keys']),
  Health: object({ status: { const: 'ok' } }, ['status']),
  RestartNeeded: object({ status: { const: 'restart needed' }, reason: str }, ['status', 'reason']),
  Readiness: object(
    {
      status: { enum: ['ready', 'unavailable'] },
      checks: { type: 'object', additionalProperties: str, description: "per backing service (storage, bus, push): 'ok' or why not, in fixed words" },
      measures: object({
        bus: object({ roundTripMs: { ...num, description: 'a probe published through the Redis bus and received back (Redis bus only)' } }, ['roundTripMs']),
        push: object({ pending: { type: 'integer', minimum: 0 }, oldestAgeMs: { ...num, minimum: 0, description: 'how long the oldest pending delivery has waited; 0 when none' } }, ['pending', 'oldestAgeMs']),
      }),
    },
    ['status', 'checks'],
  ),
  ApiKey: object({ id: str, subject: str, scopes: strings, usecase: str, createdAt: dateTime, expiresAt: dateTime, revokedAt: dateTime, status: { enum: ['active', 'expired', 'revoked'] } }, [
    'id',
    'subject',
    'scopes',
    'createdAt',
    'status',
  ]),
  AuditRecord: object(
    {
      seq: { type: 'integer', minimum: 1 },
      time: { type: 'integer', description: 'epoch milliseconds' },
      replica: str,
      action: str,
      outcome: { enum: ['success', 'failure', 'denied'] },
      actor: str,
      actorClient: str,
      target: str,
      clientAddress: str,
      userAgent: str,
      requestId: str,
      details: { type: 'object' },
      prevHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
    ['seq', 'time', 'replica', 'action', 'outcome', 'actor', 'prevHash', 'hash'],
    'One audit log record, as stored and hash-chained (docs/usage.md, Audit log)',
  ),
  NewApiKey: object({
    subject: { type: 'string', description: 'who the key acts as; default: the caller (a non-administrator may name only itself)' },
    scopes: { ...strings, description: 'default: none' },
    usecase: str,
    expiresAt: dateTime,
  }),
  // One `quotas:` entry (docs/usage.md); `source` says whether the file or the API set it.
  Quota: object(
    {
      id: str,
      source: { enum: ['config', 'api'] },
      per: { type: 'array', items: { enum: ['subject', 'client', 'key', 'usecase', 'agent', 'skill'] } },
      match: { type: 'object', additionalProperties: { type: 'string' } },
      requests: object({ limit: { type: 'integer', minimum: 1 }, window: { type: 'integer', minimum: 1000 } }, ['limit', 'window']),
      concurrentTasks: { type: 'integer', minimum: 1 },
      monthlyTokens: { type: 'integer', minimum: 1 },
      monthlyCost: { type: 'number', minimum: 0 },
    },
    ['id', 'source', 'per', 'match'],
  ),
  User: object({ username: str, scopes: strings, createdAt: dateTime }, ['username', 'scopes', 'createdAt']),
  ConsentGrant: object(
    {
      id: str,
      clientId: str,
      clientName: str,
      scopes: strings,
      resources: { type: 'object', additionalProperties: strings, description: 'resource indicator (RFC 8707) \u2192 scopes granted for it' },
      grantedAt: dateTime,
      expiresAt: dateTime,
    },
    ['id', 'clientId', 'scopes', 'resources'],
  ),
  Client: object({ clientId: str, name: str, grantTypes: strings, redirectUris: strings, scope: str, authMethod: str, issuedAt: { type: 'integer' } }, ['clientId', 'grantTypes', 'redirectUris', 'authMethod']),
  AdminTask: object({ agentId: str, owner: str, createdAt: dateTime, task: object({ id: str, contextId: str, status: { type: 'object' } }, ['id', 'status']) }, ['agentId', 'owner', 'createdAt', 'task']),
  // GET /api/v1/settings (src/bindings/management/settings-route.ts).
  Setting: object(
    {
      key: { type: 'string', description: 'the path in the resolved configuration, e.g. `server.port`, `agents[0].id`' },
      value: { description: 'a scalar or a list of scalars; a secret is `[redacted]`' },
      source: { enum: ['flag', 'env', 'file', 'default'], description: 'a command-line flag, a `${VAR}` in the file, the file, or neither (a default or a derived value)' },
    },
    ['key', 'value', 'source'],
  ),
  // GET /api/v1/agents/{agentId}/tasks/{taskId}/events (src/bindings/management/task-events-route.ts).
  TaskEventLog: object(
    {
      events: {
        type: 'array',
        items: object({ seq: { type: 'integer', minimum: 1 }, at: dateTime, kind: { enum: ['task', 'message', 'statusUpdate', 'artifactUpdate', 'userMessage'] }, event: { type: 'object' } }, [
          'seq',
          'at',
          'kind',
          'event',
        ]),
      },
      truncated: { type: 'boolean', description: 'more than 1000 events: the first 1000 are listed' },
      push: object(
        {
          configs: { type: 'array', items: object({ id: str, url: { type: 'string', description: 'without its query, which may hold a secret' }, createdAt: dateTime }, ['id', 'url', 'createdAt']) },
          pending: {
            type: 'array',
            description: 'deliveries still owed: a delivered or given-up one leaves the outbox',
            items: object({ configId: str, seq: { type: 'integer' }, attempts: { type: 'integer' }, queuedAt: dateTime, nextAttemptAt: dateTime, lastError: str }, [
              'configId',
              'seq',
              'attempts',
              'queuedAt',
              'nextAttemptAt',
            ]),
          },
        },
        ['configs', 'pending'],
      ),
    },
    ['events', 'truncated', 'push'],
  ),
  // GET /api/v1/tasks (src/bindings/management/task-list-route.ts).
  TaskSummary: object(
    {
      agentId: str,
      owner: str,
      createdAt: dateTime,
      id: str,
      contextId: str,
      status: object({ state: str, timestamp: str }, ['state']),
      preview: { type: 'string', description: 'the first user message, in one line of at most 80 characters' },
    },
    ['agentId', 'owner', 'createdAt', 'id', 'status'],
  ),
  // GET /api/v1/usage (src/bindings/management/usage-export.ts).
  UsageGroup: object(
    {
      key: { type: 'object', additionalProperties: { type: ['string', 'null'] }, description: 'the grouped dimensions\u2019 values (null: absent)' },
      bucketStart: dateTime,
      calls: { type: 'integer' },
      errors: { type: 'integer' },
      errorRate: { type: 'number' },
      latencyMs: { oneOf: [object({ p50: num, p95: num, p99: num }, ['p50', 'p95', 'p99']), { type: 'null' }] },
      durationMs: { oneOf: [object({ p50: num, p95: num, p99: num, avg: num }, ['p50', 'p95', 'p99', 'avg']), { type: 'null' }] },
      promptTokens: num,
      completionTokens: num,
      cachedTokens: { ...num, description: 'of promptTokens, those read from a prompt cache' },
      tokens: num,
      cost: num,
      bytesIn: num,
      bytesOut: num,
    },
    ['key', 'calls', 'errors', 'errorRate', 'latencyMs', 'durationMs', 'promptTokens', 'completionTokens', 'cachedTokens', 'tokens', 'cost', 'bytesIn', 'bytesOut'],
  ),
  QuotaStanding: object({ quotaId: str, kind: str, limit: num, remaining: num, resetAt: { type: ['string', 'null'], format: 'date-time' } }, ['quotaId', 'kind', 'limit', 'remaining', 'resetAt']),
  UsageAnswer: object(
    {
      from: dateTime,
      to: dateTime,
      groupBy: strings,
      bucket: { enum: ['hour', 'day', 'month'] },
      subject: { type: 'string', description: 'the subject the answer is limited to (a caller without admin)' },
      limit: { type: 'integer' },
      groups: { type: 'array', items: ref('UsageGroup') },
      quotas: { type: 'array', items: ref('QuotaStanding'), description: 'what remains of each of the caller\u2019s quotas, when the server has quotas' },
    },
    ['from', 'to', 'groupBy', 'limit', 'groups'],
  ),
  // The REST task API of the replaced service (A2A v0.1 shapes: sessionId, parts with `type`).
  Part: v01Part,
  Message: object({ role: { enum: ['user', 'agent'] }, parts: { type: 'array', items: ref('Part'), minItems: 1 }, metadata: { type: 'object' } }, ['role', 'parts']),
  TaskStatus: object({ state: { enum: ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'unknown'] }, message: ref('Message'), timestamp: dateTime }, ['state']),
  Artifact: object({ name: str, description: str, parts: { type: 'array', items: ref('Part') }, index: { type: 'integer' }, append: { type: 'boolean' }, lastChunk: { type: 'boolean' }, metadata: { type: 'object' } }, [
    'parts',
    'index',
  ]),
  Task: object({ id: str, sessionId: str, status: ref('TaskStatus'), artifacts: { type: 'array', items: ref('Artifact') }, history: { type: 'array', items: ref('Message') }, metadata: { type: 'object' } }, [
    'id',
    'status',
  ]),
  TaskStatusView: object({ id: str, sessionId: str, status: ref('TaskStatus') }, ['id', 'status']),
  CreateTask: object({ message: ref('Message'), sessionId: { type: 'string', description: 'groups tasks (the A2A context id)' }, metadata: { type: 'object' } }, ['message']),
  AddMessage: object({ message: ref('Message'), metadata: { type: 'object' } }, ['message']),
  // The MCP compatibility routes (src/bindings/mcp/compat/): documents, left open beyond their keys.
  McpServerInfo: object({ name: str, version: str, endpoint: str, auth: { type: 'object' } }, ['name', 'version', 'endpoint']),
  McpMetadata: { type: 'object', description: 'MCP server discovery: server, endpoint, tools, authentication and connector settings' },
  McpTool: object({ name: str, description: str, inputSchema: { type: 'object' } }, ['name', 'inputSchema']),
  McpToolList: object({ tools: { type: 'array', items: ref('McpTool') } }, ['tools']),
  McpHealth: object({ status: { const: 'ok' }, version: str, agents: { type: 'integer' }, tools: { type: 'integer' } }, ['status', 'version', 'agents', 'tools']),
  McpValidation: object({ valid: { type: 'boolean' }, checks: { type: 'array', items: { type: 'object' } } }, ['valid', 'checks']),
  JsonRpcResponse: object({ jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, result: {}, error: object({ code: { type: 'integer' }, message: str }, ['code', 'message']) }, ['jsonrpc']),
  McpCompatResult: { description: 'The MCP result itself (params in), or a JSON-RPC response (a JSON-RPC request in)', type: 'object' },
};

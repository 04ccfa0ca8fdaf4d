/**
 * The OpenAPI 3.1 document of every HTTP route outside the A2A and MCP protocol endpoints (and the
 * OAuth endpoints, which RFC 8414 metadata describes): served at `/openapi.json`, rendered at
 * `/docs`. test/bindings/openapi/openapi.test.ts validates it with an OpenAPI validator, and the route tests
 * check real answers against its schemas (test/support/openapi-conformance.ts).
 */
import { SCHEMAS } from './schemas.js';
import { usageOperation } from './usage-operation.js';
import { AUTH_ERRORS, body, error, html, json, param, ref, type Obj } from './builders.js';
import { connectionsPaths } from './connections-paths.js';

const ADMIN = { security: [{ bearer: ['admin'] }, { apiKey: ['admin'] }], ...{} };
const adminOp = (summary: string, responses: Obj, extra: Obj = {}) => ({ tags: ['management'], summary, ...ADMIN, ...extra, responses: { ...responses, ...AUTH_ERRORS } });
const scoped = (scope: string) => ({ security: [{ bearer: [scope] }, { apiKey: [scope] }] });
/** `/api/v1/keys`: scope admin for every key; any credential (or the console's session) for one's own. */
const keysOp = (summary: string, responses: Obj, extra: Obj = {}) => ({
  tags: ['management'],
  summary,
  security: [{ bearer: ['admin'] }, { apiKey: ['admin'] }, { bearer: [] }, { apiKey: [] }],
  ...extra,
  responses: { ...responses, ...AUTH_ERRORS },
});
const card = (summary: string, params: Obj[] = []) => ({
  get: {
    tags: ['discovery'],
    summary,
    parameters: params,
    responses: { '200': json(ref('AgentCard'), 'The card (ETag, Cache-Control)'), '304': { description: 'Not modified (If-None-Match)' }, '404': error('No such agent (or a hidden one)') },
  },
});
const agentId = param('agentId', 'The agent id');
const taskId = param('taskId', 'The task id');

/** The routes of the replaced service's REST task API (src/bindings/novaeden/novaeden-task-api.ts). */
const createTask = (tag: string) => ({
  post: {
    tags: [tag],
    summary: 'Create a task: the agent runs the message and the task is returned once it completes or needs input',
    ...scoped('a2a:publish'),
    parameters: [agentId],
    requestBody: body(ref('CreateTask')),
    responses: { '200': json(ref('Task'), 'The task'), '400': error('A missing or malformed message'), '404': error('No such agent (or one the caller may not see)'), ...AUTH_ERRORS },
  },
});
const getTask = (tag: string) => ({
  get: {
    tags: [tag],
    summary: "The caller's task (tasks are owner-scoped: another subject's task is not found)",
    ...scoped('a2a:discover'),
    parameters: [taskId, param('historyLength', 'At most this many messages of history', 'query', { type: 'integer', minimum: 0 })],
    responses: { '200': json(ref('Task'), 'The task'), '400': error('A malformed historyLength'), '404': error('No such task of the caller'), ...AUTH_ERRORS },
  },
});

export function openApiDocument(version: string): Obj {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agentport HTTP API',
      version,
      summary: 'Management, discovery, health and compatibility routes',
      description:
        'Every HTTP route of Agentport outside the A2A (JSON-RPC, HTTP+JSON, gRPC) and MCP protocol endpoints and the OAuth endpoints. ' +
        'Credentials: `Authorization: Bearer <token or API key>` or `X-API-Key`. Refusals have the A2A HTTP+JSON error shape.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [
      { name: 'discovery', description: 'Agent cards, the registry, signing keys' },
      { name: 'tasks', description: 'The REST task API of the replaced service (docs/migrating-from-novaeden.md)' },
      { name: 'a2a compatibility', description: 'The same task API under the paths of its scope matrix' },
      { name: 'management', description: 'API keys, users, OAuth clients, any task (scope admin); one\u2019s own API keys (any signed-in caller); usage (admin: everyone\u2019s, usage:read: one\u2019s own)' },
      { name: 'connections', description: 'Per-user OAuth to remotes (auth: oauth): connect links and callback, one\u2019s own connections' },
      { name: 'mcp compatibility', description: 'Routes beside the MCP endpoint that connectors of the replaced service call' },
      { name: 'console', description: 'The web console (docs/console.md): its files and its session' },
      { name: 'health', description: 'Liveness and readiness' },
      { name: 'documentation', description: 'This document and its reference page' },
    ],
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An OAuth access token, an external issuer\u2019s JWT, or an API key' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    paths: {
      '/.well-known/agent-card.json': card('The primary agent\u2019s card (v0.3 shape on `A2A-Version: 0.3`)'),
      '/.well-known/agent.json': card('The primary agent\u2019s card in the v0.3 shape (the A2A v0.2 path)'),
      '/a2a/{agentId}/.well-known/agent-card.json': card('An agent\u2019s card', [agentId]),
      '/a2a/{agentId}/.well-known/agent.json': card('An agent\u2019s card in the v0.3 shape', [agentId]),
      '/api/v1/agents/{agentId}/card': card('An agent\u2019s card', [agentId]),
      '/api/v1/agents': {
        get: {
          tags: ['discovery'],
          summary: 'The agents the caller may see: a summary, or (`view=cards`) a list of cards',
          parameters: [param('view', '`cards`: a JSON array of the agents\u2019 cards (v0.3 shape), as the replaced service answered', 'query', { enum: ['summary', 'cards'] })],
          responses: { '200': json({ oneOf: [ref('AgentList'), ref('AgentCardList')] }, 'The agents'), '401': AUTH_ERRORS['401'] },
        },
      },
      '/.well-known/jwks.json': { get: { tags: ['discovery'], summary: 'The public keys of card signatures and own tokens', responses: { '200': json(ref('Jwks'), 'A JWK Set') } } },
      '/api/v1/agents/{agentId}/tasks': createTask('tasks'),
      '/api/v1/tasks': {
        get: {
          tags: ['management'],
          summary: 'Tasks across agents and owners, newest status first: an administrator sees every owner\u2019s, any other caller only its own',
          security: [{ bearer: ['admin'] }, { apiKey: ['admin'] }, { bearer: ['a2a:discover'] }, { apiKey: ['a2a:discover'] }],
          parameters: [
            param('agent', 'Only this agent\u2019s tasks', 'query'),
            param('state', 'Only tasks in this state (e.g. TASK_STATE_WORKING)', 'query'),
            param('owner', 'Only this owner\u2019s tasks (a non-administrator may name only itself)', 'query'),
            param('since', 'Status time at or after (RFC 3339 or epoch ms)', 'query'),
            param('until', 'Status time before (RFC 3339 or epoch ms)', 'query'),
            param('pageToken', 'The `nextPageToken` of the previous page', 'query'),
            param('pageSize', 'At most this many tasks (default 50, at most 500)', 'query', { type: 'integer', minimum: 0, maximum: 500 }),
          ],
          responses: {
            '200': json(
              { type: 'object', properties: { tasks: { type: 'array', items: ref('TaskSummary') }, totalSize: { type: 'integer' }, nextPageToken: { type: 'string' } }, required: ['tasks', 'totalSize'] },
              'A page of tasks (`nextPageToken` when more follow)',
            ),
            '400': error('An unknown or malformed filter, or a page token this server did not issue'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/api/v1/tasks/{taskId}': getTask('tasks'),
      '/api/v1/tasks/{taskId}/status': {
        get: {
          tags: ['tasks'],
          summary: 'The state of the caller\u2019s task',
          ...scoped('a2a:discover'),
          parameters: [taskId],
          responses: { '200': json(ref('TaskStatusView'), 'The task\u2019s status'), '404': error('No such task of the caller'), ...AUTH_ERRORS },
        },
      },
      '/api/v1/tasks/{taskId}/messages': {
        post: {
          tags: ['tasks'],
          summary: 'Another message on the caller\u2019s task (finding the task needs a2a:discover too)',
          ...scoped('a2a:publish'),
          parameters: [taskId],
          requestBody: body(ref('AddMessage')),
          responses: { '200': json(ref('Task'), 'The task'), '400': error('A missing or malformed message, or a task in a terminal state'), '404': error('No such task of the caller'), ...AUTH_ERRORS },
        },
      },
      '/a2a/agents': {
        get: {
          tags: ['a2a compatibility'],
          summary: 'The agents the caller may see, as cards (needs a2a:discover; not an A2A endpoint of an agent named `agents`)',
          ...scoped('a2a:discover'),
          responses: { '200': json(ref('AgentCardList'), 'The agents\u2019 cards'), ...AUTH_ERRORS },
        },
      },
      '/a2a/agents/{agentId}/tasks': createTask('a2a compatibility'),
      '/a2a/tasks/{taskId}': getTask('a2a compatibility'),
      '/api/v1/keys': {
        get: keysOp('The stored API keys, never their secrets: an administrator sees every key, anyone else signed in only their own', {
          '200': json({ type: 'object', properties: { keys: { type: 'array', items: ref('ApiKey') } }, required: ['keys'] }, 'The keys'),
        }),
        post: keysOp(
          'Create an API key; its secret is shown once. An administrator creates one for any subject; anyone else signed in (not with an API key) only for themselves, with scopes they hold (403 naming any other) and, when their sign-in is bound to a usecase, bound to it too',
          { '201': json({ allOf: [ref('ApiKey'), { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }] }, 'The key and its secret'), '400': error('A malformed body') },
          { requestBody: body(ref('NewApiKey')) },
        ),
      },
      '/api/v1/keys/{id}': {
        delete: keysOp(
          'Revoke an API key: an administrator any key, anyone else only their own',
          { '204': { description: 'Revoked' }, '404': error('No such key (or, for a non-administrator, another subject\u2019s)') },
          { parameters: [param('id', 'The key id (16 hex digits)')] },
        ),
      },
      ...connectionsPaths(),
      '/api/v1/quotas': {
        get: adminOp('The quotas in force: from the configuration file (read-only) and set through this API', {
          '200': json({ type: 'object', properties: { quotas: { type: 'array', items: ref('Quota') } }, required: ['quotas'] }, 'The quotas'),
        }),
      },
      '/api/v1/quotas/{id}': {
        get: adminOp('One quota', { '200': json(ref('Quota'), 'The quota'), '404': error('No such quota') }, { parameters: [param('id', 'The quota id')] }),
        put: adminOp(
          'Create or replace a quota (a quota of the configuration file cannot be changed here)',
          { '200': json(ref('Quota'), 'Replaced'), '201': json(ref('Quota'), 'Created'), '400': error('A malformed quota, or a quota of the configuration file') },
          { parameters: [param('id', 'The quota id')], requestBody: body({ type: 'object', description: 'One `quotas:` entry of agentport.yaml; `id` comes from the path' }) },
        ),
        delete: adminOp(
          'Delete a quota set through this API',
          { '204': { description: 'Deleted' }, '400': error('A quota of the configuration file'), '404': error('No such quota') },
          { parameters: [param('id', 'The quota id')] },
        ),
      },
      '/api/v1/audit': {
        get: adminOp(
          'The audit log, oldest first, filtered; `format=ndjson` exports every matching record, one per line',
          {
            '200': {
              description: 'The records (JSON: a page, with `nextAfter` when there are more; NDJSON: all of them)',
              content: {
                'application/json': { schema: { type: 'object', properties: { records: { type: 'array', items: ref('AuditRecord') }, nextAfter: { type: 'integer' } }, required: ['records'] } },
                'application/x-ndjson': { schema: { type: 'string' } },
              },
            },
            '400': error('An unknown or malformed filter'),
          },
          {
            parameters: [
              param('action', 'Only this action (e.g. apikey.created)', 'query'),
              param('actor', 'Only this actor', 'query'),
              param('target', 'Only this target (e.g. apikey:<id>)', 'query'),
              param('outcome', 'Only this outcome', 'query', { enum: ['success', 'failure', 'denied'] }),
              param('since', 'Records at or after (RFC 3339 or epoch ms)', 'query'),
              param('until', 'Records before (RFC 3339 or epoch ms)', 'query'),
              param('after', 'Records after this seq (the next page)', 'query', { type: 'integer', minimum: 0 }),
              param('limit', 'At most this many (JSON: default 100, at most 1000; NDJSON: default all)', 'query', { type: 'integer', minimum: 0 }),
              param('format', 'json (default) or ndjson', 'query', { enum: ['json', 'ndjson'] }),
            ],
          },
        ),
      },
      '/api/v1/audit/verify': {
        get: adminOp('Whether the audit log\u2019s hash chain is intact (the walk of `agentport audit verify`)', {
          '200': json(
            {
              type: 'object',
              properties: {
                ok: { type: 'boolean' },
                count: { type: 'integer', description: 'records checked and found sound' },
                lastSeq: { type: 'integer' },
                lastHash: { type: 'string' },
                seq: { type: 'integer', description: 'when broken: the first seq whose record or link is wrong' },
                problem: { type: 'string', enum: ['hash-mismatch', 'missing-row', 'prev-hash-mismatch'] },
                detail: { type: 'string' },
              },
              required: ['ok', 'count'],
            },
            'The verdict',
          ),
        }),
      },
      '/api/v1/users': {
        get: adminOp('The local users', { '200': json({ type: 'object', properties: { users: { type: 'array', items: ref('User') } }, required: ['users'] }, 'The users') }),
        post: adminOp(
          'Create a local user (a password is generated unless given)',
          { '201': json({ type: 'object', properties: { user: ref('User'), password: { type: 'string' } }, required: ['user'] }, 'The user'), '400': error('A malformed body') },
          { requestBody: body({ type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } }, required: ['username'] }) },
        ),
      },
      '/api/v1/users/{username}': {
        delete: adminOp('Delete a user (ends their sessions, revokes their grants)', { '204': { description: 'Deleted' }, '404': error('No such user') }, { parameters: [param('username', 'The username')] }),
        patch: adminOp(
          'Set a user\u2019s scopes (ends their sessions, revokes their grants)',
          { '200': json({ type: 'object', properties: { user: ref('User') }, required: ['user'] }, 'The user'), '400': error('A malformed body'), '404': error('No such user') },
          { parameters: [param('username', 'The username')], requestBody: body({ type: 'object', properties: { scopes: { type: 'array', items: { type: 'string' } } }, required: ['scopes'] }) },
        ),
      },
      '/api/v1/users/{username}/grants': {
        get: adminOp(
          'A user\u2019s consent grants: the client, the scopes granted (per resource indicator), when, until when',
          { '200': json({ type: 'object', properties: { grants: { type: 'array', items: ref('ConsentGrant') } }, required: ['grants'] }, 'The grants'), '404': error('No such user') },
          { parameters: [param('username', 'The username')] },
        ),
      },
      '/api/v1/users/{username}/grants/{grantId}': {
        delete: adminOp(
          'Revoke a user\u2019s consent grant: its codes and refresh tokens, and its access tokens at once; the client asks for consent again',
          { '204': { description: 'Revoked' }, '404': error('No such user, or no such live grant of theirs') },
          { parameters: [param('username', 'The username'), param('grantId', 'The grant id')] },
        ),
      },
      '/api/v1/clients': {
        get: adminOp('The OAuth clients', { '200': json({ type: 'object', properties: { clients: { type: 'array', items: ref('Client') } }, required: ['clients'] }, 'The clients') }),
        post: adminOp(
          'Register an OAuth client (a secret is shown once for confidential and machine clients)',
          { '201': json({ type: 'object', properties: { client: ref('Client'), clientSecret: { type: 'string' } }, required: ['client'] }, 'The client'), '400': error('A malformed body') },
          {
            requestBody: body({
              type: 'object',
              properties: {
                name: { type: 'string' },
                kind: { enum: ['machine', 'public', 'confidential'] },
                redirectUris: { type: 'array', items: { type: 'string' } },
                scopes: { type: 'array', items: { type: 'string' } },
                tokenExchange: { type: 'boolean', description: 'may exchange a user\u2019s access token for a narrower one naming the client as actor (RFC 8693); not for public clients' },
              },
              required: ['name'],
            }),
          },
        ),
      },
      '/api/v1/clients/{id}': { delete: adminOp('Delete an OAuth client', { '204': { description: 'Deleted' }, '404': error('No such client') }, { parameters: [param('id', 'The client id')] }) },
      '/api/v1/agents/{agentId}/tasks/{taskId}': {
        get: adminOp('Any subject\u2019s task, with its owner', { '200': json(ref('AdminTask'), 'The task'), '404': error('No such task') }, { parameters: [agentId, taskId] }),
      },
      '/api/v1/agents/{agentId}/tasks/{taskId}/events': {
        get: {
          tags: ['management'],
          summary: 'A task\u2019s stored event log in order, and its push deliveries (configs, and deliveries still owed): the owner\u2019s, or anyone\u2019s for an administrator',
          security: [{ bearer: ['admin'] }, { apiKey: ['admin'] }, { bearer: ['a2a:discover'] }, { apiKey: ['a2a:discover'] }],
          parameters: [agentId, taskId],
          responses: { '200': json(ref('TaskEventLog'), 'The events and push deliveries'), '404': error('No such task, or another owner\u2019s'), ...AUTH_ERRORS },
        },
      },
      '/api/v1/settings': {
        get: adminOp('The resolved configuration, one row per value with where it came from (flag, env, file, default), secrets redacted', {
          '200': json(
            {
              type: 'object',
              properties: {
                file: { type: ['string', 'null'], description: 'the configuration file read, or null (defaults and flags only)' },
                settings: { type: 'array', items: ref('Setting') },
              },
              required: ['file', 'settings'],
            },
            'The settings',
          ),
        }),
      },
      '/api/v1/usage': { get: usageOperation() },
      '/mcp/oauth/clients': {
        get: adminOp('The OAuth clients (the replaced service\u2019s path of GET /api/v1/clients)', {
          '200': json({ type: 'object', properties: { clients: { type: 'array', items: ref('Client') } }, required: ['clients'] }, 'The clients'),
        }),
      },
      '/mcp/oauth/clients/{clientId}': {
        delete: adminOp(
          'Delete an OAuth client (the replaced service\u2019s path)',
          { '204': { description: 'Deleted' }, '404': json(ref('OAuthError'), 'No such client') },
          { parameters: [param('clientId', 'The client id')] },
        ),
      },
      '/console': { get: { tags: ['console'], summary: 'The web console: redirects to `console/` (relative, so a proxy\u2019s path prefix is kept)', responses: { '308': { description: 'To /console/' } } } },
      '/console/assets/{file}': {
        get: {
          tags: ['console'],
          summary: 'The web console\u2019s scripts and styles: named by their content hash, cached as immutable (`/console/` itself is revalidated each time)',
          parameters: [param('file', 'A file of the built console')],
          responses: { '200': { description: 'The file' }, '404': error('No such file, or the console is not built') },
        },
      },
      '/console/session': {
        get: {
          tags: ['console'],
          summary: 'Who is signed in to the console and the session\u2019s CSRF token (send it as X-CSRF-Token with the session cookie), or how to sign in',
          responses: {
            '200': json(
              {
                type: 'object',
                properties: {
                  signedIn: { type: 'boolean' },
                  open: { type: 'boolean', description: 'authentication is off (auth.mode none): no sign-in' },
                  username: { type: 'string' },
                  scopes: { type: 'array', items: { type: 'string' } },
                  admin: { type: 'boolean' },
                  connections: { type: 'boolean', description: 'some agent reaches its remote as the user (auth: oauth): the Connections page applies' },
                  csrf: { type: 'string' },
                  signIn: { type: 'object' },
                },
                required: ['signedIn'],
              },
              'The session, or the sign-in settings',
            ),
          },
        },
        post: {
          tags: ['console'],
          summary:
            'Exchanges an access token issued to the console\u2019s client (agentport-console) for a session cookie (HttpOnly, SameSite=Strict) of the token\u2019s account (a local user, an upstream account or a token sign-in); the session lasts while the token\u2019s grant does, 8 hours at most',
          requestBody: body({ type: 'object', properties: { accessToken: { type: 'string' } }, required: ['accessToken'] }),
          responses: {
            '201': json({ type: 'object' }, 'Signed in; the cookie is set'),
            '400': error('No token, or not JSON'),
            '401': error('The token is not valid, not the console\u2019s, or its grant has ended'),
            '403': error('Neither a local user nor a grant to stand on (a token minted outside the sign-in)'),
          },
        },
      },
      '/console/session/end': {
        post: {
          tags: ['console'],
          summary: 'Signs out: ends every console session of the user (session cookie and X-CSRF-Token)',
          responses: { '204': { description: 'Signed out' }, '401': error('No live session, or a wrong CSRF token') },
        },
      },
      '/mcp/config/': { get: { tags: ['management'], summary: 'The admin page for OAuth clients (HTML; a local admin signs in there)', responses: { '200': html('The page') } } },
      '/': {
        get: {
          tags: ['documentation'],
          summary: 'The landing page: agents, endpoints and how to connect; HTML for browsers (Accept: text/html), else its facts as JSON (with the connect steps under `connect`)',
          responses: { '200': { description: 'The page', content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } } },
        },
      },
      '/mcp/tools/list': {
        get: { tags: ['mcp compatibility'], summary: 'The public tool list (no credential needed)', responses: { '200': json(ref('McpToolList'), 'The tools') } },
        post: {
          tags: ['mcp compatibility'],
          summary: 'The public tool list; a JSON-RPC request gets a JSON-RPC response',
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '200': json({ oneOf: [ref('McpToolList'), ref('JsonRpcResponse')] }, 'The tools') },
        },
      },
      '/mcp/tools/call': {
        post: {
          tags: ['mcp compatibility'],
          summary: '`{name, arguments}` (or a JSON-RPC `tools/call`), run by the MCP endpoint with the caller\u2019s credential',
          ...scoped('mcp:tools'),
          requestBody: body({ type: 'object' }),
          responses: { '200': json(ref('McpCompatResult'), 'The CallToolResult'), '401': json(ref('JsonRpcResponse'), 'No valid credential'), '403': json(ref('JsonRpcResponse'), 'Lacking the scope') },
        },
      },
      '/mcp/initialize': {
        post: {
          tags: ['mcp compatibility'],
          summary: 'An MCP `initialize` answered by /mcp, without a session',
          requestBody: body({ type: 'object' }),
          responses: { '200': json(ref('McpCompatResult'), 'The InitializeResult'), '401': json(ref('JsonRpcResponse'), 'No valid credential (auth.mode required)') },
        },
      },
      '/mcp/resources/list': {
        get: {
          tags: ['mcp compatibility'],
          summary: '`resources/list` on /mcp',
          ...scoped('mcp:tools'),
          responses: { '200': json(ref('McpCompatResult'), 'The resources'), '401': json(ref('JsonRpcResponse'), 'No valid credential') },
        },
      },
      '/mcp/health': { get: { tags: ['mcp compatibility'], summary: 'Liveness and counts', responses: { '200': json(ref('McpHealth'), 'Alive') } } },
      '/mcp/validate': { get: { tags: ['mcp compatibility'], summary: 'The tool surface checked against what connectors require', responses: { '200': json(ref('McpValidation'), 'The checks') } } },
      '/.well-known/mcp-metadata': { get: { tags: ['mcp compatibility'], summary: 'MCP discovery for connectors', responses: { '200': json(ref('McpMetadata'), 'The metadata') } } },
      '/healthz': {
        get: { tags: ['health'], summary: 'Liveness', responses: { '200': json(ref('Health'), 'Alive'), '503': json(ref('RestartNeeded'), 'Only a restart mends what failed (the SQLite commit thread stopped)') } },
      },
      '/readyz': { get: { tags: ['health'], summary: 'Readiness of each backing service', responses: { '200': json(ref('Readiness'), 'Ready'), '503': json(ref('Readiness'), 'A backing service is not ready') } } },
      '/metrics': {
        get: {
          tags: ['health'],
          summary:
            'Prometheus metrics (text format 0.0.4) for an admin credential or the `metrics.token` bearer token; absent with `metrics.listen` (its own listener) or `metrics.enabled: false` (docs/observability.md)',
          ...ADMIN,
          responses: { '200': { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, ...AUTH_ERRORS },
        },
      },
      '/openapi.json': { get: { tags: ['documentation'], summary: 'This document', responses: { '200': json({ type: 'object' }, 'The OpenAPI 3.1 document') } } },
      '/docs': { get: { tags: ['documentation'], summary: 'The API reference page (HTML, served from the package)', responses: { '200': html('The page') } } },
    },
  };
}

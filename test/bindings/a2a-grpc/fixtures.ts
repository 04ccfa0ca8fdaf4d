/** ProtoJSON values that exercise every field of the A2A model, shared by the gRPC codec and server tests. */
import type { AgentCard, Artifact, Message, Task, TaskPushNotificationConfig } from '../../../src/protocol/a2a/types.js';

export const nestedMetadata = {
  str: 'héllo ✓',
  int: 42,
  negative: -7,
  float: 3.25,
  big: 9007199254740991,
  yes: true,
  no: false,
  nothing: null,
  emptyObject: {},
  emptyList: [],
  list: [1, 'two', null, { three: [3] }, [false]],
  deep: { a: { b: { c: ['d'] } } },
};

export const userMessage: Message = {
  messageId: 'msg-1',
  contextId: 'ctx-1',
  taskId: 'task-1',
  role: 'ROLE_USER',
  parts: [
    { text: 'hello', metadata: { lang: 'en' } },
    { raw: Buffer.from([0, 1, 2, 250, 255]).toString('base64'), filename: 'a.bin', mediaType: 'application/octet-stream' },
    { url: 'https://example.com/a.png', mediaType: 'image/png' },
    { data: { k: [1, 2, { x: null }] } },
    { data: null },
    { data: 'a scalar' },
    { text: '' },
  ],
  metadata: nestedMetadata,
  extensions: ['urn:ext:one'],
  referenceTaskIds: ['task-0'],
};

export const agentMessage: Message = {
  messageId: 'msg-2',
  contextId: 'ctx-1',
  role: 'ROLE_AGENT',
  parts: [{ text: 'working on it' }],
};

export const artifact: Artifact = {
  artifactId: 'art-1',
  name: 'result',
  description: 'the result',
  parts: [{ data: [1, 2, 3] }, { text: 'done' }],
  metadata: { score: 0.5 },
  extensions: ['urn:ext:one'],
};

export const task: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_WORKING', message: agentMessage, timestamp: '2026-03-04T05:06:07.089Z' },
  artifacts: [artifact],
  history: [userMessage, agentMessage],
  metadata: { owner: 'someone' },
};

export const pushConfig: TaskPushNotificationConfig = {
  tenant: 'agent-a',
  id: 'cfg-1',
  taskId: 'task-1',
  url: 'https://hooks.example.com/a2a',
  token: 'opaque',
  authentication: { scheme: 'Bearer', credentials: 'secret' },
};

export const agentCard: AgentCard = {
  name: 'Echo',
  description: 'Repeats what it hears',
  supportedInterfaces: [
    { url: 'grpc.example.com:443', protocolBinding: 'GRPC', tenant: 'echo', protocolVersion: '1.0' },
    { url: 'https://example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  provider: { url: 'https://example.com', organization: 'Example' },
  version: '1.2.3',
  documentationUrl: '',
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [{ uri: 'urn:ext:one', description: 'one', required: true, params: { level: 2 } }, { uri: 'urn:ext:two' }],
  },
  securitySchemes: {
    key: { apiKeySecurityScheme: { description: 'api key', location: 'header', name: 'X-Api-Key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    code: {
      oauth2SecurityScheme: {
        description: 'oauth',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://auth.example.com/authorize',
            tokenUrl: 'https://auth.example.com/token',
            refreshUrl: 'https://auth.example.com/refresh',
            scopes: { read: 'Read', write: 'Write' },
            pkceRequired: true,
          },
        },
        oauth2MetadataUrl: 'https://auth.example.com/.well-known/oauth-authorization-server',
      },
    },
    machines: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: {} } } } },
    devices: {
      oauth2SecurityScheme: {
        flows: { deviceCode: { deviceAuthorizationUrl: 'https://auth.example.com/device', tokenUrl: 'https://auth.example.com/token', scopes: { read: 'Read' } } },
      },
    },
    legacyImplicit: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: 'https://auth.example.com/authorize', scopes: {} } } } },
    legacyPassword: { oauth2SecurityScheme: { flows: { password: { tokenUrl: 'https://auth.example.com/token', scopes: { a: 'A' } } } } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.example.com/.well-known/openid-configuration' } },
    mtls: { mtlsSecurityScheme: { description: 'client certificates' } },
    bareMtls: { mtlsSecurityScheme: {} },
  },
  securityRequirements: [{ schemes: { code: { list: ['read', 'write'] }, key: { list: [] } } }, { schemes: { mtls: { list: [] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes',
      tags: ['demo'],
      examples: ['hi'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    },
    { id: 'bare', name: 'Bare', description: 'No extras', tags: [] },
  ],
  signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln', header: { kid: 'k1' } }],
  iconUrl: 'https://example.com/icon.png',
};

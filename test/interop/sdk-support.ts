/**
 * Helpers for driving Agentport with the official A2A JS SDK client (@a2a-js/sdk 1.3): one client
 * per transport built from our own agent card, request builders in the SDK's proto-shaped types, a
 * `node:http` webhook receiver for push delivery, and small stream/error utilities.
 */
import http from 'node:http';
import type { JWK } from 'jose';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest, TaskState, taskStateToJSON, type Message, type SendMessageResult, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type CallInterceptor, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

export const API_KEY = 'test-key-0123456789abcdef';

/** echo (its one skill only on the extended card) and conformance, push to loopback, one API key. */
export const SERVER_CONFIG = {
  agents: [
    { id: 'echo', builtin: 'echo', skills: { echo: { visibility: 'extended' } } },
    { id: 'conformance', builtin: 'conformance' },
  ],
  push: { allowHttp: true, allowlist: ['127.0.0.1', 'localhost', '::1'] },
  auth: { apiKeys: [{ key: API_KEY, subject: 'alice' }] },
};

export interface TransportCase {
  /** the protocolBinding of the card interface the client must pick */
  binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  factory: () => TransportFactory;
}

/** Each factory is the only one given to its ClientFactory, so the client cannot pick another. */
export const TRANSPORTS: TransportCase[] = [
  { binding: 'JSONRPC', factory: () => new JsonRpcTransportFactory() },
  { binding: 'HTTP+JSON', factory: () => new RestTransportFactory() },
  { binding: 'GRPC', factory: () => new GrpcTransportFactory() },
];

/** A CallInterceptor that adds `Authorization: Bearer <key>` to every call (HTTP header or gRPC metadata). */
export function bearerAuth(key: string): CallInterceptor {
  return {
    async before(args) {
      if (args.options?.serviceParameters) args.options.serviceParameters.Authorization = `Bearer ${key}`;
    },
    async after() {},
  };
}

/** A client for the card at `cardUrl` that can only use `transport`. */
export async function sdkClient(cardUrl: string, transport: TransportCase, interceptors: CallInterceptor[] = []): Promise<Client> {
  const factory = new ClientFactory({ transports: [transport.factory()], clientConfig: { interceptors } });
  // An empty path makes the resolver fetch `cardUrl` itself rather than `<origin>/.well-known/…`.
  return factory.createFromUrl(cardUrl, '');
}

/** A verifier for the SDK's `verifyAgentCardSignature` that looks keys up by `kid` in a JWKS we fetched ourselves. */
export function jwksKeyLookup(jwks: { keys: Array<Record<string, unknown>> }, seen?: Array<{ kid: string; jku?: string }>) {
  return async (kid: string, jku?: string): Promise<JWK> => {
    seen?.push({ kid, jku });
    const key = jwks.keys.find((k) => k.kid === kid);
    if (!key) throw new Error(`no key ${kid} in the JWKS`);
    return key as JWK;
  };
}

/** Closes the gRPC channel a client may hold (the SDK has no public close). */
export function closeClient(client: Client | undefined): void {
  const t = client?.transport as unknown as { base?: unknown; grpcClient?: { close(): void } } | undefined;
  const inner = (t?.base ?? t) as { grpcClient?: { close(): void } } | undefined;
  inner?.grpcClient?.close();
}

let counter = 0;
/** A messageId with the given prefix (the conformance agent dispatches on the prefix). */
export const uniqueId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export interface MessageOptions {
  messageId?: string;
  text?: string;
  contextId?: string;
  taskId?: string;
  /** SendMessageConfiguration in ProtoJSON form */
  configuration?: Record<string, unknown>;
}

/** A SendMessageRequest in the SDK's own types, built from ProtoJSON by the SDK's codec. */
export function sendRequest(opts: MessageOptions = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: opts.messageId ?? uniqueId('m'),
      role: 'ROLE_USER',
      parts: [{ text: opts.text ?? 'hello' }],
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
    },
    ...(opts.configuration ? { configuration: opts.configuration } : {}),
  });
}

export const isMessage = (r: SendMessageResult): r is Message => 'messageId' in r;

export function asTask(r: SendMessageResult): Task {
  if (isMessage(r)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(r)}`);
  return r;
}

/** `TASK_STATE_…` name of a task's state, for readable assertions. */
export const stateOf = (t: Pick<Task, 'status'>): string => taskStateToJSON(t.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

export const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

/** One stream event as `case[:state]`, e.g. `task:TASK_STATE_SUBMITTED`, `artifactUpdate`. */
export function describeEvent(ev: StreamResponse): string {
  const p = ev.payload;
  switch (p?.$case) {
    case 'task':
      return `task:${stateOf(p.value)}`;
    case 'statusUpdate':
      return `statusUpdate:${stateOf(p.value)}`;
    case 'artifactUpdate':
      return 'artifactUpdate';
    case 'message':
      return 'message';
    default:
      return 'empty';
  }
}

/** The task id an event belongs to. */
export function taskIdOfEvent(ev: StreamResponse): string | undefined {
  const p = ev.payload;
  if (p?.$case === 'task') return p.value.id;
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') return p.value.taskId;
  return p?.value.taskId;
}

export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/** The error a promise rejects with; fails if it resolves. */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    const value = await p;
    throw new Error(`expected a rejection, got ${JSON.stringify(value)}`, { cause: 'resolved' });
  } catch (err) {
    if (err instanceof Error && err.cause === 'resolved') throw err;
    return err;
  }
}

/** Text of the first part of the first artifact, or undefined. */
export function firstArtifactText(t: Task): string | undefined {
  const c = t.artifacts[0]?.parts[0]?.content;
  return c?.$case === 'text' ? c.value : undefined;
}

export interface ReceivedPush {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON body */
  body: Record<string, any>;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  received: ReceivedPush[];
  close(): Promise<void>;
}

/** A webhook endpoint on 127.0.0.1 that records every POST and answers 200. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedPush[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, any>;
      try {
        body = JSON.parse(text) as Record<string, any>;
      } catch {
        body = { unparsable: text };
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

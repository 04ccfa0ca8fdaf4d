/**
 * A reference A2A server built from the official SDK (@a2a-js/sdk 1.3): its DefaultRequestHandler
 * and in-memory stores behind its Express JSON-RPC and REST handlers (v1.0, with the SDK's own v0.3
 * compatibility layer on) and its gRPC services (v1.0 and v0.3). The executor understands the same first words as
 * Agentport's probe agent that the client suites use: `ticks <n> <ms>`, `hold`, anything else echoes.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { createRequire } from 'node:module';
import { AGENT_CARD_PATH, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

type SdkCard = ConstructorParameters<typeof DefaultRequestHandler>[0];

// express ships no types here (no @types/express); the SDK's handlers only need use() and listen().
interface ExpressApp {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

const textPart = (text: string) => ({ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const now = () => new Date().toISOString();

function executor(): AgentExecutor {
  const cancels = new Map<string, () => void>();
  return {
    async execute(ctx, bus) {
      const { taskId, contextId } = ctx;
      const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      const status = (state: TaskState) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: now() }, metadata: undefined }));
      const artifact = (t: string) =>
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: randomUUID(), name: 'out', description: '', parts: [textPart(t)], metadata: undefined, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
      const [word, ...args] = text.split(' ');
      if (word === 'ticks') {
        status(TaskState.TASK_STATE_WORKING);
        for (let i = 0; i < Number(args[0]); i++) {
          await new Promise((r) => setTimeout(r, Number(args[1] ?? 10)));
          artifact(`tick-${i}`);
        }
        status(TaskState.TASK_STATE_COMPLETED);
      } else if (word === 'hold') {
        status(TaskState.TASK_STATE_WORKING);
        await new Promise<void>((resolve) => cancels.set(taskId, resolve));
        status(TaskState.TASK_STATE_CANCELED);
      } else {
        artifact(text);
        status(TaskState.TASK_STATE_COMPLETED);
      }
      bus.finished();
    },
    async cancelTask(taskId) {
      // the running execute() publishes CANCELED on the task's bus and finishes it
      cancels.get(taskId)?.();
    },
  };
}

export interface A2aJsServer {
  http: string;
  grpc: string;
  cardUrl: string;
  /** `POST /a2a/jsonrpc 0.3`: method, path and A2A-Version of each HTTP request to the A2A handlers */
  readonly seen: string[];
  stop(): Promise<void>;
}

export async function startA2aJsServer(): Promise<A2aJsServer> {
  const app = express();
  const httpServer: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const grpcServer = new grpc.Server();
  const grpcPort = await new Promise<number>((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
  const iface = (url: string, protocolBinding: string, protocolVersion: string) => ({ url, protocolBinding, tenant: '', protocolVersion });
  const card = {
    name: 'a2a-js reference',
    description: 'The official SDK server, for client interop tests',
    supportedInterfaces: [
      iface(`${base}/a2a/jsonrpc`, 'JSONRPC', '1.0'),
      iface(`${base}/a2a/rest`, 'HTTP+JSON', '1.0'),
      iface(`127.0.0.1:${grpcPort}`, 'GRPC', '1.0'),
      iface(`${base}/a2a/jsonrpc`, 'JSONRPC', '0.3'),
      iface(`${base}/a2a/rest`, 'HTTP+JSON', '0.3'),
      iface(`127.0.0.1:${grpcPort}`, 'GRPC', '0.3'),
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['test'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  } as unknown as SdkCard;
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor(), undefined, new InMemoryPushNotificationStore());
  const legacyCompat = { enabled: true };
  const seen: string[] = [];
  app.use('/a2a', (req: { method: string; baseUrl: string; path: string; headers: Record<string, unknown> }, _res: unknown, next: () => void) => {
    seen.push(`${req.method} ${req.baseUrl}${req.path} ${req.headers['a2a-version'] ?? '-'}`);
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }) as unknown as grpc.UntypedServiceImplementation);
  // v0.3's service (package a2a.v1) beside v1.0's (lf.a2a.v1) on the same port
  grpcServer.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }) as unknown as grpc.UntypedServiceImplementation);
  return {
    http: base,
    grpc: `127.0.0.1:${grpcPort}`,
    cardUrl: `${base}/${AGENT_CARD_PATH}`,
    seen,
    async stop() {
      grpcServer.forceShutdown();
      httpServer.closeAllConnections();
      await new Promise((r) => httpServer.close(r));
    },
  };
}

// a2a-js 1.3 echo target: the official SDK server (DefaultRequestHandler +
// InMemoryTaskStore) with an echo AgentExecutor, served by the SDK's Express
// JSON-RPC handler at POST /a2a/jsonrpc and its HTTP+JSON (REST) handler under
// /a2a/rest (so SendMessage is POST /a2a/rest/message:send). Card at
// /.well-known/agent-card.json.
//
// Echo executor, same shape as Agentport's echo agent:
//   Task(SUBMITTED) -> artifact with the echoed text -> status COMPLETED.
//
// Usage: node bench/targets/a2a-js-echo.mjs [--port N]   (0 = ephemeral)
// Prints one line "LISTENING <port>" on stdout once ready.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { TaskState, AGENT_CARD_PATH } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, agentCardHandler, UserBuilder } from '@a2a-js/sdk/server/express';

function argValue(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}
const port = Number(argValue('--port', process.env.PORT ?? '0'));
const host = '127.0.0.1';

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

class EchoExecutor {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const user = ctx.userMessage;
    const text = (user.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [user],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'echo',
          description: '',
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

function buildCard(base) {
  return {
    name: 'echo',
    description: 'Echo agent (a2a-js 1.3 benchmark peer)',
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'Echoes the text it receives',
        tags: ['echo'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

const app = express();
const server = app.listen(port, host, () => {
  const actual = server.address().port;
  const card = buildCard(`http://${host}:${actual}`);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`LISTENING ${actual}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

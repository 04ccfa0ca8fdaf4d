import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { A2AClient, apiKeyAuth, textMessage } from 'agentport/client';
import { startTestServer, type TestServer } from 'agentport/testing';

/**
 * A scripted model on loopback, speaking OpenAI Chat Completions as it streams (server-sent
 * `chat.completion.chunk` events, tool calls in pieces, a usage chunk, `[DONE]`): asked anything,
 * it first calls the echo tool with the user's words, then answers with what the tool returned.
 */
interface ChatRequest {
  messages: Array<{ role: string; content: string | null; tool_call_id?: string }>;
  tools?: Array<{ function: { name: string } }>;
}

const requests: ChatRequest[] = [];
let model: Server;

function answer(req: ChatRequest): string[] {
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'scripted', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const usage = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'scripted', choices: [], usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } })}\n\n`;
  const result = req.messages.find((m) => m.role === 'tool');
  if (!result) {
    const question = req.messages.filter((m) => m.role === 'user').pop()?.content ?? '';
    const args = JSON.stringify({ request: question.replace(/^Repeat after me:\s*/i, '') });
    return [
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'echo__echo', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] }),
      chunk({}, 'tool_calls'),
      usage,
      'data: [DONE]\n\n',
    ];
  }
  // The tool's result comes wrapped as data: {"source", "status", "data", …}.
  const echoed = (JSON.parse(result.content ?? '{}') as { data?: string }).data ?? '';
  const text = `The echo agent said: ${echoed}`;
  const words = text.split(/(?<= )/);
  return [chunk({ role: 'assistant', content: '' }), ...words.map((w) => chunk({ content: w })), chunk({}, 'stop'), usage, 'data: [DONE]\n\n'];
}

async function readBody(req: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}

let server: TestServer;
let client: A2AClient;

before(async () => {
  model = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    const body = await readBody(req);
    requests.push(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of answer(body)) res.write(event);
    res.end();
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  // agentport.yaml reads these: the agent talks to the scripted model, not to the network.
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  process.env.OPENAI_API_KEY = 'sk-scripted';
  // The agents of ./agentport.yaml on a free port, with a throw-away database and a test key.
  server = await startTestServer();
  client = await A2AClient.connect(server.agentUrl('assistant'), { auth: apiKeyAuth(server.apiKey!) });
});
after(async () => {
  // Also after a failed start: the scripted model must not keep the test process alive.
  client?.close();
  await server?.close();
  model?.closeAllConnections();
  await new Promise((resolve) => (model ? model.close(resolve) : resolve(undefined)));
});

test('the card comes from the configuration', () => {
  assert.equal(client.card.name, 'assistant');
  assert.deepEqual(
    client.card.skills.map((s) => s.id),
    ['answer'],
  );
});

test('the model calls the echo agent as a tool and answers with its result', async () => {
  const before = requests.length;
  const response = await client.sendMessage({ message: textMessage('Repeat after me: hello') });
  assert.ok('task' in response, 'an LLM agent answers with a task');
  assert.equal(response.task.status.state, 'TASK_STATE_COMPLETED');
  const text = (response.task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
  assert.match(text, /^The echo agent said: .*hello/);
  // Two model calls: the first offered the echo agent's skill as a tool, the second got its result.
  const seen = requests.slice(before);
  assert.equal(seen.length, 2);
  assert.ok(seen[0]!.tools?.some((t) => t.function.name === 'echo__echo'));
  assert.ok(seen[1]!.messages.some((m) => m.role === 'tool' && m.content?.includes('hello')));
});

test('the answer streams as chunks of one artifact', async () => {
  const chunks: string[] = [];
  let state = '';
  for await (const { response } of client.sendStreamingMessage({ message: textMessage('Repeat after me: streamed') })) {
    if ('artifactUpdate' in response) chunks.push(response.artifactUpdate.artifact.parts.map((p) => p.text ?? '').join(''));
    if ('statusUpdate' in response) state = response.statusUpdate.status.state;
  }
  assert.equal(state, 'TASK_STATE_COMPLETED');
  assert.ok(chunks.length > 1, `several chunks, got ${chunks.length}`);
  assert.match(chunks.join(''), /^The echo agent said: .*streamed/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { A2AClient, apiKeyAuth, stateOf, textMessage, type StreamResponse } from 'agentport/client';
import { startTestServer, type TestServer } from 'agentport/testing';

let server: TestServer;
let client: A2AClient;

before(async () => {
  // The agents of ./agentport.yaml on a free port, with a throw-away database and a test key.
  server = await startTestServer();
  client = await A2AClient.connect(server.agentUrl('writer'), { auth: apiKeyAuth(server.apiKey!) });
});
after(async () => {
  client.close();
  await server.close();
});

test('the card declares streaming', () => {
  assert.equal(client.card.capabilities.streaming, true);
});

test('the text arrives in chunks of one artifact, then the task completes', async () => {
  const events: StreamResponse[] = [];
  for await (const event of client.sendStreamingMessage({ message: textMessage('the sea') })) events.push(event.response);

  const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
  assert.ok(chunks.length > 5, `expected many chunks, got ${chunks.length}`);
  assert.equal(new Set(chunks.map((c) => c.artifact.artifactId)).size, 1, 'all chunks extend one artifact');
  assert.equal(chunks.at(-1)?.lastChunk, true);
  const text = chunks.map((c) => c.artifact.parts.map((p) => p.text ?? '').join('')).join('');
  assert.equal(text, 'Here is a short text about the sea, written one word at a time.');
  assert.equal(stateOf(events.at(-1)!), 'TASK_STATE_COMPLETED');
});

test('a blocking call gets the finished task with the whole text', async () => {
  const response = await client.sendMessage({ message: textMessage('rivers') });
  assert.ok('task' in response);
  assert.equal(response.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(response.task.artifacts?.[0]?.parts.map((p) => p.text).join(''), 'Here is a short text about rivers, written one word at a time.');
});

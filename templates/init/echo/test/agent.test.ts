import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { A2AClient, apiKeyAuth, textMessage, type StreamResponse } from 'agentport/client';
import { startTestServer, type TestServer } from 'agentport/testing';

let server: TestServer;
let client: A2AClient;

before(async () => {
  // The agents of ./agentport.yaml on a free port, with a throw-away database and a test key.
  server = await startTestServer();
  client = await A2AClient.connect(server.agentUrl('echo'), { auth: apiKeyAuth(server.apiKey!) });
});
after(async () => {
  client.close();
  await server.close();
});

test('the card names the agent and its skill', () => {
  assert.equal(client.card.name, 'Echo');
  assert.deepEqual(
    client.card.skills.map((s) => s.id),
    ['echo'],
  );
});

test('the agent replies with the text it got', async () => {
  const response = await client.sendMessage({ message: textMessage('hello') });
  assert.ok('message' in response, 'a direct reply, not a task');
  assert.equal(response.message.parts[0]?.text, 'You said: hello');
});

test('the reply streams too', async () => {
  const events: StreamResponse[] = [];
  for await (const event of client.sendStreamingMessage({ message: textMessage('streamed') })) events.push(event.response);
  assert.equal(events.length, 1);
  assert.ok('message' in events[0]!);
  assert.equal(events[0].message.parts[0]?.text, 'You said: streamed');
});

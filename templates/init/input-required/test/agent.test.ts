import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { A2AClient, apiKeyAuth, textMessage } from 'agentport/client';
import { startTestServer, type TestServer } from 'agentport/testing';

let server: TestServer;
let client: A2AClient;

before(async () => {
  // The agents of ./agentport.yaml on a free port, with a throw-away database and a test key.
  server = await startTestServer();
  client = await A2AClient.connect(server.agentUrl('booking'), { auth: apiKeyAuth(server.apiKey!) });
});
after(async () => {
  client.close();
  await server.close();
});

test('a request that names the day is booked at once', async () => {
  const response = await client.sendMessage({ message: textMessage('a table for two on friday') });
  assert.ok('task' in response);
  assert.equal(response.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(response.task.status.message?.parts[0]?.text, 'Booked: "a table for two on friday", on friday.');
});

test('without a day the agent asks, and the answer to the same task completes it', async () => {
  const first = await client.sendMessage({ message: textMessage('a table for four') });
  assert.ok('task' in first);
  assert.equal(first.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(first.task.status.message?.parts[0]?.text, 'Which day would you like the table for?');

  const { id: taskId, contextId } = first.task;
  const unclear = await client.sendMessage({ message: textMessage('soon', { taskId, contextId }) });
  assert.ok('task' in unclear);
  assert.equal(unclear.task.status.state, 'TASK_STATE_INPUT_REQUIRED', 'asked again');

  const answer = await client.sendMessage({ message: textMessage('saturday', { taskId, contextId }) });
  assert.ok('task' in answer);
  assert.equal(answer.task.id, taskId);
  assert.equal(answer.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(answer.task.status.message?.parts[0]?.text, 'Booked: "a table for four", on saturday.');
});

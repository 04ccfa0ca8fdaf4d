import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { A2AClient, apiKeyAuth, textMessage } from 'agentport/client';
import { startTestServer, type TestServer } from 'agentport/testing';

let server: TestServer;
let client: A2AClient;

before(async () => {
  // The agents of ./agentport.yaml on a free port, with a throw-away database and a test key.
  server = await startTestServer();
  client = await A2AClient.connect(server.agentUrl('sales'), { auth: apiKeyAuth(server.apiKey!) });
});
after(async () => {
  client.close();
  await server.close();
});

async function ask(text: string) {
  const response = await client.sendMessage({ message: textMessage(text) });
  assert.ok('task' in response);
  return response.task;
}

test('the summary is revenue per region, as a data part', async () => {
  const task = await ask('summary');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const data = task.artifacts?.[0]?.parts.find((p) => p.data !== undefined)?.data;
  assert.deepEqual(data, {
    rows: 10,
    columns: ['date', 'region', 'product', 'units', 'revenue'],
    revenueByRegion: { North: 2280, South: 1560, West: 880, East: 1750 },
  });
});

test("a region's rows come as JSON and as a CSV file", async () => {
  const task = await ask('region north');
  const parts = task.artifacts?.[0]?.parts ?? [];
  const rows = parts.find((p) => p.data !== undefined)?.data as Array<Record<string, unknown>>;
  assert.equal(rows.length, 3);
  assert.ok(rows.every((r) => r.region === 'North'));
  const file = parts.find((p) => p.raw !== undefined);
  assert.equal(file?.mediaType, 'text/csv');
  assert.equal(file?.filename, 'sales-north.csv');
  assert.equal(Buffer.from(file!.raw!, 'base64').toString().split('\n')[1], '2024-01-15,North,Lamp,12,480');
});

test('an unknown region is rejected with the regions there are', async () => {
  const task = await ask('region Mars');
  assert.equal(task.status.state, 'TASK_STATE_REJECTED');
  assert.match(task.status.message?.parts[0]?.text ?? '', /North, South, West, East/);
});

/**
 * The agent of README.md ("Writing an agent"), taken from the README itself: it must stream
 * (issue 11: it failed `--stream` with UnsupportedOperation when streaming was opt-in). Served
 * through `agentport/testing`, as an agent project's own tests do.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { A2AClient, stateOf, textMessage, type StreamResponse } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../../src/testing/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The example imports agentport/agent, which resolves to the build.
requireBuilt('dist/agents/sdk/index.js');

/** The fenced block of README.md whose first line is `firstLine`. */
function readmeBlock(firstLine: string): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith(firstLine));
  if (!block) throw new Error(`README.md has no code block starting with ${firstLine}`);
  return block;
}

describe("README's example agent", () => {
  let dir: string;
  let server: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agentport-readme-'));
    mkdirSync(path.join(dir, 'node_modules'));
    // `agentport/agent` resolves to this checkout, as it does in a project that installed it.
    symlinkSync(root, path.join(dir, 'node_modules/agentport'), 'dir');
    writeFileSync(path.join(dir, 'my-agent.mjs'), readmeBlock('// my-agent.mjs'));
    writeFileSync(path.join(dir, 'agentport.yaml'), readmeBlock('# agentport.yaml'));
    server = await startTestServer({ cwd: dir, auth: 'none' });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('declares streaming and streams its status and artifact', async () => {
    const client = await A2AClient.connect(server.agentUrl('greeter'));
    expect(client.card.capabilities.streaming).toBe(true);
    const events: StreamResponse[] = [];
    for await (const e of client.sendStreamingMessage({ message: textMessage('world') })) events.push(e.response);
    client.close();
    const working = events.find((e) => stateOf(e) === 'TASK_STATE_WORKING') as { statusUpdate: { status: { message?: { parts: Array<{ text?: string }> } } } } | undefined;
    expect(working?.statusUpdate.status.message?.parts[0]?.text).toBe('thinking…');
    const artifact = events.find((e) => 'artifactUpdate' in e) as { artifactUpdate: { artifact: { parts: Array<{ text?: string }> } } } | undefined;
    expect(artifact?.artifactUpdate.artifact.parts[0]?.text).toBe('Hello, world!');
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
  });

  it('an agent can still turn streaming off in its card', async () => {
    writeFileSync(path.join(dir, 'quiet.mjs'), readmeBlock('// my-agent.mjs').replace("card: { name: 'Greeter',", "card: { capabilities: { streaming: false }, name: 'Greeter',"));
    writeFileSync(path.join(dir, 'quiet.yaml'), 'agents:\n  - id: quiet\n    module: ./quiet.mjs\n');
    const quiet = await startTestServer({ cwd: dir, config: 'quiet.yaml', auth: 'none' });
    try {
      const client = await A2AClient.connect(quiet.agentUrl('quiet'));
      expect(client.card.capabilities.streaming).toBe(false);
      const stream = client.sendStreamingMessage({ message: textMessage('world') });
      await expect(stream.next()).rejects.toMatchObject({ kind: 'UnsupportedOperation' });
      client.close();
    } finally {
      await quiet.close();
    }
  });
});

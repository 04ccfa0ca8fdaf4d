/**
 * `agentport dev` as a real child process (the built CLI) over a project folder: saving an agent's
 * module changes what the agent answers without a restart, a task already running finishes on the
 * code it started with, a broken save keeps the previous version, and agentport.yaml edits add
 * agents or are refused with a reason.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { A2AClient, apiKeyAuth, textMessage, type StreamResponse } from '../../src/client/index.js';
import { spawnWatched, type Spawned } from '../support/spawned.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
requireBuilt('dist/cli/main.js');

/** An agent that answers `<version>: <text>`, and takes its time for "slow". */
const agentSource = (version: string) => `
import { defineAgent } from 'agentport/agent';
export default defineAgent({
  card: { name: 'Greeter', description: 'Says hello', skills: [{ id: 'greet', name: 'Greet', description: 'Greets you', tags: ['demo'] }] },
  async execute(ctx) {
    ctx.working('thinking');
    if (ctx.text() === 'slow') await ctx.sleep(2500);
    if (ctx.text() === 'boom') throw new Error('kaboom from the agent');
    ctx.artifact('${version}: ' + ctx.text());
    ctx.complete();
  },
});
`;

const CONFIG = 'agents:\n  - id: greeter\n    module: ./agents/greeter.mjs\n';

describe('agentport dev (built CLI)', () => {
  let dir: string;
  let dev: Spawned;
  let key: string;
  let base: string;
  const module = () => path.join(dir, 'agents/greeter.mjs');

  async function ask(agentUrl: string, text: string): Promise<string> {
    const client = await A2AClient.connect(agentUrl, { auth: apiKeyAuth(key) });
    try {
      const r = await client.sendMessage({ message: textMessage(text) });
      if (!('task' in r)) throw new Error('expected a task');
      return r.task.artifacts?.[0]?.parts[0]?.text ?? `(no artifact; state ${r.task.status.state})`;
    } finally {
      client.close();
    }
  }

  /** Saves `text` to `file` and waits for the reload line that follows. */
  async function save(file: string, text: string, line: RegExp): Promise<string> {
    const from = dev.output().length;
    writeFileSync(file, text);
    return (await dev.waitFor(line, 20_000, from))[0];
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agentport-dev-'));
    mkdirSync(path.join(dir, 'agents'));
    mkdirSync(path.join(dir, 'node_modules'));
    // The project resolves `agentport/agent` to this checkout, as an installed package would.
    symlinkSync(root, path.join(dir, 'node_modules/agentport'), 'dir');
    writeFileSync(module(), agentSource('v1'));
    writeFileSync(path.join(dir, 'agentport.yaml'), CONFIG);
    const env = { ...process.env };
    delete env.AGENTPORT_CONFIG;
    dev = spawnWatched(process.execPath, [path.join(root, 'bin/agentport.js'), 'dev', '--port', '0', '--grpc-port', '0', '--log-level', 'warn'], { cwd: dir, env });
    await dev.waitFor(/Watching /, 30_000);
    key = (await dev.waitFor(/KEY=(dev_[\w-]+)/))[1]!;
    base = (await dev.waitFor(/greeter\s+A2A\s+(http:\/\/127\.0\.0\.1:\d+)\/a2a\/greeter/))[1]!;
  }, 60_000);

  afterAll(async () => {
    const code = await dev?.stop();
    expect(code).toBe(0);
    expect(dev.output()).toContain('Stopped.');
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  it('prints the A2A, card and MCP URLs of each agent and a key that works', async () => {
    expect(dev.output()).toContain(`${base}/a2a/greeter/.well-known/agent-card.json`);
    expect(dev.output()).toContain(`${base}/a2a/greeter/mcp`);
    expect(dev.output()).toContain(`MCP, every agent   ${base}/mcp`);
    expect(dev.output()).toContain(`Console            ${base}/console/`);
    // One `KEY=` line (the dev key); the first start's admin key is `ADMIN_KEY=`.
    expect(dev.output().match(/^\s*KEY=/gm)).toHaveLength(1);
    await dev.waitFor(/^ADMIN_KEY=ap_/m);
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v1: hi');
  });

  it('an agent that throws is logged readably: the message and the place in the agent file, not a JSON line', { timeout: 30_000 }, async () => {
    const from = dev.output().length;
    expect(await ask(`${base}/a2a/greeter`, 'boom')).toMatch(/no artifact; state TASK_STATE_FAILED/);
    const [, message] = await dev.waitFor(/\] (?:WARN|ERROR) .*\n\s+(.*kaboom from the agent.*)\n/, 10_000, from);
    expect(message).toContain('kaboom from the agent');
    // The throw is line 8 of the module agentSource writes (its first line is empty).
    await dev.waitFor(/ {4}at agents\/greeter\.mjs:8:\d+/, 10_000, from);
    expect(dev.output().slice(from)).not.toMatch(/^\{"level"/m);
  });

  it('a saved module answers the next message; a task already running finishes on the old code', { timeout: 60_000 }, async () => {
    const pid = dev.child.pid;
    const client = await A2AClient.connect(`${base}/a2a/greeter`, { auth: apiKeyAuth(key) });
    const events: StreamResponse[] = [];
    let working!: () => void;
    const started = new Promise<void>((resolve) => (working = resolve));
    const slow = (async () => {
      for await (const e of client.sendStreamingMessage({ message: textMessage('slow') })) {
        events.push(e.response);
        if ('statusUpdate' in e.response && e.response.statusUpdate.status.state === 'TASK_STATE_WORKING') working();
      }
    })();
    await started;

    const line = await save(module(), agentSource('v2'), /↻ reloaded greeter/);
    expect(line).toContain('reloaded greeter');
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v2: hi');

    await slow;
    client.close();
    const artifact = events.find((e) => 'artifactUpdate' in e) as { artifactUpdate: { artifact: { parts: Array<{ text?: string }> } } } | undefined;
    expect(artifact?.artifactUpdate.artifact.parts[0]?.text).toBe('v1: slow');
    expect(dev.child.pid).toBe(pid);
    expect(dev.child.exitCode).toBeNull();
  });

  it('a save that does not load keeps the previous version and says why', { timeout: 60_000 }, async () => {
    const line = await save(module(), 'export default defineAgent({ card: {', /✗ .*/);
    expect(line).toContain('greeter (agents/greeter.mjs): Unexpected end of input');
    expect(line).toContain('the previous version keeps running');
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v2: hi');

    const notAnAgent = await save(module(), 'export default 42;\n', /✗ .*/);
    expect(notAnAgent).toContain('must export an AgentDefinition');
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v2: hi');

    await save(module(), agentSource('v3'), /↻ reloaded greeter/);
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v3: hi');
  });

  it('saves by temp file + rename and by delete + create, several in a row, each reach the running server', { timeout: 60_000 }, async () => {
    // vim (backupcopy=no), JetBrains "safe write", sed -i and most formatters save this way.
    for (let i = 1; i <= 3; i++) {
      const from = dev.output().length;
      const temp = `${module()}.tmp${i}`;
      writeFileSync(temp, agentSource(`r${i}`));
      renameSync(temp, module());
      await dev.waitFor(/↻ reloaded greeter/, 20_000, from);
      expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe(`r${i}: hi`);
    }
    const from = dev.output().length;
    unlinkSync(module());
    writeFileSync(module(), agentSource('v3'));
    await dev.waitFor(/↻ reloaded greeter/, 20_000, from);
    expect(await ask(`${base}/a2a/greeter`, 'hi')).toBe('v3: hi');
  });

  it('agentport.yaml: a new agent is served at once; an invalid file or a change that needs a restart is refused', { timeout: 60_000 }, async () => {
    const configFile = path.join(dir, 'agentport.yaml');
    const added = await save(configFile, `${CONFIG}  - id: second\n    module: ./agents/greeter.mjs\n`, /↻ .*agentport\.yaml: .*/);
    expect(added).toContain('reloaded second');
    expect(await ask(`${base}/a2a/second`, 'yo')).toBe('v3: yo');

    const invalid = await save(configFile, `${CONFIG}  - id: third\n    module: ./agents/missing.mjs\n`, /✗ .*/);
    expect(invalid).toContain('file not found');
    expect(invalid).toContain('the previous configuration keeps running');

    const restart = await save(configFile, `${CONFIG}storage: sqlite:./other.db\n`, /✗ .*/);
    expect(restart).toContain('storage changed; restart agentport dev');
    // Refused, so `second` is still served.
    expect(await ask(`${base}/a2a/second`, 'still')).toBe('v3: still');

    const hidden = await save(configFile, `${CONFIG}  - id: second\n    module: ./agents/greeter.mjs\n    visibility: extended\n`, /✗ .*/);
    expect(hidden).toContain("access settings of agent 'second'");
  });
});

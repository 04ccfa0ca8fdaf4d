/**
 * `agentport card | send | tasks`, run in-process exactly as from a terminal (test/cli/fake-io.ts)
 * against a running Agentport: outputs people read, --json for scripts, the documented exit codes,
 * the live view in both its terminal and plain forms, Ctrl-C, and a stream that survives a dropped
 * connection (the server's card points at a proxy that drops every connection once).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { DropProxy } from '../client/cut-proxy.js';
import { PROBE_MODULE } from '../client/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { fakeIO, type FakeIO } from './fake-io.js';
import { freePort } from '../support/private-services.js';

const API_KEY = 'cli-commands-key-0123456789';

// freePort(): below the ephemeral range and reserved across parallel test processes.
let s: TestServer;
let locked: TestServer;
let proxy: DropProxy;
let cwd: string;

beforeAll(async () => {
  cwd = mkdtempSync(path.join(tmpdir(), 'agentport-cli-a2a-'));
  // The server reports its public URL only, so its port is chosen here and the proxy pointed at it.
  const port = await freePort();
  proxy = await DropProxy.start('127.0.0.1', port);
  s = await startTestServer({
    server: { port, publicUrl: `http://127.0.0.1:${proxy.port}` },
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'probe', module: PROBE_MODULE },
    ],
    auth: { mode: 'none' },
  });
  locked = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }], auth: { mode: 'required', apiKeys: [{ key: API_KEY, subject: 'bob', scopes: ['a2a:discover', 'a2a:publish'] }] } });
});
afterAll(async () => {
  await s?.stop();
  await locked?.stop();
  await proxy?.close();
});

// The server's public URL is the proxy's: its cards name the proxy, and so do we.
const base = () => `http://127.0.0.1:${proxy.port}`;
const probe = () => `${base()}/a2a/probe`;
const echo = () => `${base()}/a2a/echo`;

async function cli(args: string[], opts: { tty?: boolean; during?: (io: FakeIO) => void } = {}): Promise<FakeIO & { code: number }> {
  const io = fakeIO(cwd);
  if (opts.tty) io.isTTY = true;
  const running = runCli(['node', 'agentport', ...args], io);
  opts.during?.(io);
  await running;
  return Object.assign(io, { code: io.exits[0] ?? 0 });
}

const waitFor = async (cond: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('agentport send', () => {
  it('waits for the task and prints its state and artifact; exit 0', async () => {
    const r = await cli(['send', echo(), 'hello cli']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^task {5}\S+\ncontext {2}\S+\nstate {4}completed\n/);
    expect(r.out).toContain('── artifact echo\nhello cli\n');
    expect(r.err).toBe('');
  });

  it('--json prints the SendMessageResponse for scripts', async () => {
    const r = await cli(['send', echo(), 'json please', '--json']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out);
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0].parts[0].text).toBe('json please');
  });

  it('attaches files and data as parts', async () => {
    writeFileSync(path.join(cwd, 'note.txt'), 'file body');
    const r = await cli(['send', echo(), 'with parts', '--file', 'note.txt', '--data', '{"n":1}', '--json']);
    expect(r.code).toBe(0);
    const parts = JSON.parse(r.out).task.artifacts[0].parts;
    expect(parts).toEqual([{ text: 'with parts' }, { raw: Buffer.from('file body').toString('base64'), filename: 'note.txt', mediaType: 'text/plain' }, { data: { n: 1 }, mediaType: 'application/json' }]);
  });

  it('continues a conversation with --context', async () => {
    const first = JSON.parse((await cli(['send', echo(), 'one', '--json'])).out).task;
    const second = JSON.parse((await cli(['send', echo(), 'two', '--context', first.contextId, '--json'])).out).task;
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
  });

  it.each([
    ['fail no luck', 1, /state {4}failed/],
    ['input', 3, /state {4}input-required/],
  ])('"%s" exits %i', async (text, code, out) => {
    const r = await cli(['send', probe(), text]);
    expect(r.code).toBe(code);
    expect(r.out).toMatch(out);
    if (code === 3) expect(r.err).toMatch(/the agent needs input; answer with: agentport send \S+ "<reply>" --task \S+/);
  });

  it('answers a task that asked for input with --task', async () => {
    const asked = JSON.parse((await cli(['send', probe(), 'auth-wait', '--no-wait', '--json'])).out).task;
    await new Promise((r) => setTimeout(r, 100));
    const r = await cli(['send', probe(), 'the password', '--task', asked.id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).task.artifacts.at(-1).parts[0].text).toBe('got: the password');
  });

  it('--no-wait returns at once with the task still running; exit 0', async () => {
    const r = await cli(['send', probe(), 'hold', '--no-wait', '--json']);
    expect(r.code).toBe(0);
    const task = JSON.parse(r.out).task;
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    await cli(['tasks', 'cancel', probe(), task.id]);
  });

  it('exit 2 for usage errors: nothing to send, bad --data, missing file, not a URL', async () => {
    for (const args of [
      ['send', echo()],
      ['send', echo(), 'x', '--data', '{nope'],
      ['send', echo(), 'x', '--file', 'missing.bin'],
      ['send', 'echo', 'x'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/^agentport: /);
    }
  });

  it('exit 4 when the agent is unreachable, 5 for an A2A error, 6 without credentials', async () => {
    const down = await cli(['send', `http://127.0.0.1:${await freePort()}/a2a/echo`, 'x']);
    expect(down.code).toBe(4);
    expect(down.err).toMatch(/ECONNREFUSED/);
    const unknownTask = await cli(['send', echo(), 'x', '--task', 'no-such-task']);
    expect(unknownTask.code).toBe(5);
    expect(unknownTask.err).toMatch(/^agentport: TaskNotFound: /);
    const anonymous = await cli(['send', `${locked.http}/a2a/echo`, 'x']);
    expect(anonymous.code).toBe(6);
    expect(anonymous.err).toMatch(/--api-key/);
    const withKey = await cli(['send', `${locked.http}/a2a/echo`, 'x', '--api-key', API_KEY]);
    expect(withKey.code).toBe(0);
    const fromEnv = fakeIO(cwd, { AGENTPORT_TOKEN: API_KEY });
    await runCli(['node', 'agentport', 'send', `${locked.http}/a2a/echo`, 'x', '--binding', 'grpc'], fromEnv);
    expect(fromEnv.exits).toEqual([]);
  });
});

describe('agentport send --stream', () => {
  it('plain lines with elapsed time when stdout is not a terminal', async () => {
    const r = await cli(['send', probe(), 'ticks 3 30', '--stream']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[\d+\.\ds\] task \S+ \(context \S+\)$/);
    expect(lines.filter((l) => l.startsWith('tick-'))).toEqual(['tick-0', 'tick-1', 'tick-2']);
    expect(lines.at(-1)).toMatch(/^\[\d+\.\ds\] completed(: .*)?$/);
    expect(r.out).not.toContain('\x1b[');
  });

  it('a live status line on a terminal: spinner, state, elapsed time, redrawn in place', async () => {
    const r = await cli(['send', probe(), 'ticks 3 150', '--stream'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\r\x1b\[2K\x1b\[2m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] working {2}\d+\.\ds {2}task \S+\x1b\[0m/);
    expect(r.out).toContain('tick-2\n');
    // the status line is cleared at the end: the last thing written is the clear sequence
    expect(r.out.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('--json: one StreamResponse per line, with its event id', async () => {
    const r = await cli(['send', probe(), 'ticks 2 10', '--stream', '--json']);
    expect(r.code).toBe(0);
    const events = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(Object.keys(events[0])).toEqual(['id', 'task']);
    expect(events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text)).toEqual(['tick-0', 'tick-1']);
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('survives a dropped connection: resumes after the last event, every tick exactly once', async () => {
    const r = await cli(['send', probe(), 'ticks 6 100', '--stream'], {
      during: (io) => void waitFor(() => io.out.includes('tick-1\n')).then(() => proxy.drop()),
    });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^connection lost; resuming after event \d+ \(attempt 1\)\n$/);
    expect(r.out.split('\n').filter((l) => l.startsWith('tick-'))).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5']);
  });

  it('Ctrl-C stops following, says how to pick the task up again, exit 130', async () => {
    const r = await cli(['send', probe(), 'hold', '--stream'], {
      during: (io) => void waitFor(() => io.out.includes('working')).then(() => io.signal('SIGINT')),
    });
    expect(r.code).toBe(130);
    expect(r.err).toMatch(/stopped following; task (\S+) keeps running. Follow it again: agentport tasks subscribe \S+ \1/);
    const id = /task (\S+) keeps running/.exec(r.err)![1]!;
    expect((await cli(['tasks', 'cancel', probe(), id])).out).toBe(`canceled  ${id}\n`);
  });
});

describe('agentport tasks', () => {
  it('get prints a task; --json the Task; an unknown id exits 5', async () => {
    const task = JSON.parse((await cli(['send', echo(), 'kept', '--json'])).out).task;
    const got = await cli(['tasks', 'get', echo(), task.id]);
    expect(got.code).toBe(0);
    expect(got.out).toContain(`task     ${task.id}\n`);
    expect(JSON.parse((await cli(['tasks', 'get', echo(), task.id, '--json'])).out).id).toBe(task.id);
    expect((await cli(['tasks', 'get', echo(), 'nope'])).code).toBe(5);
  });

  it('list shows a table filtered by context and state, each task with its first message cut to 40 characters', async () => {
    const first = 'listed: the first message of this task, long enough to be cut';
    const task = JSON.parse((await cli(['send', echo(), first, '--json'])).out).task;
    const r = await cli(['tasks', 'list', echo(), '--context', task.contextId, '--state', 'completed']);
    expect(r.code).toBe(0);
    // 39 characters of the message and an ellipsis.
    const preview = `${first.slice(0, 39).trimEnd()}…`;
    expect(r.out).toMatch(new RegExp(`^TASK +STATE +CONTEXT +UPDATED +MESSAGE\n${task.id} +completed +${task.contextId} +\\S+ +${preview.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`));
    expect((await cli(['tasks', 'list', echo(), '--state', 'sleeping'])).code).toBe(2);
  });

  it('cancel cancels; canceling again a finished task is an agent error (exit 5)', async () => {
    const task = JSON.parse((await cli(['send', probe(), 'hold', '--no-wait', '--json'])).out).task;
    const r = await cli(['tasks', 'cancel', probe(), task.id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).status.state).toBe('TASK_STATE_CANCELED');
    const done = JSON.parse((await cli(['send', echo(), 'done', '--json'])).out).task;
    const again = await cli(['tasks', 'cancel', echo(), done.id]);
    expect(again.code).toBe(5);
    expect(again.err).toMatch(/TaskNotCancelable/);
  });

  it('subscribe follows a running task to its end; a canceled one ends with exit 7', async () => {
    const task = JSON.parse((await cli(['send', probe(), 'ticks 3 100', '--no-wait', '--json'])).out).task;
    const r = await cli(['tasks', 'subscribe', probe(), task.id]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\] completed(: .*)?\n$/);
    const held = JSON.parse((await cli(['send', probe(), 'hold', '--no-wait', '--json'])).out).task;
    const sub = await cli(['tasks', 'subscribe', probe(), held.id], {
      during: (io) => void waitFor(() => io.out.includes('working')).then(() => cli(['tasks', 'cancel', probe(), held.id])),
    });
    expect(sub.code).toBe(7);
    expect(sub.out).toMatch(/\] canceled(: .*)?\n$/);
  });

  it('subscribe --last-event-id replays only what came after that event', async () => {
    const task = JSON.parse((await cli(['send', probe(), 'ticks 4 60', '--no-wait', '--json'])).out).task;
    await new Promise((r) => setTimeout(r, 500));
    const r = await cli(['tasks', 'subscribe', probe(), task.id, '--last-event-id', '3', '--json']);
    const events = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => 4 + i));
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('agentport card', () => {
  it('summarises the card and marks the interface the client would use', async () => {
    const r = await cli(['card', echo()]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Echo 1.0.0\n');
    expect(r.out).toMatch(/^ \* JSONRPC {3}1\.0 {2}http:\/\/127\.0\.0\.1:\d+\/a2a\/echo$/m);
    expect(r.out).toMatch(/^signed {8}yes/m);
    expect(r.out).toMatch(/^ {2}echo {2}Echo: /m);
  });

  it('--jwks verifies the signature; a key set without the signer exits 8', async () => {
    const ok = await cli(['card', echo(), '--jwks', `${base()}/.well-known/jwks.json`]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('verified signature');
    const bad = await cli(['card', echo(), '--jwks', `${locked.http}/.well-known/jwks.json`]);
    expect(bad.code).toBe(8);
    expect(bad.err).toMatch(/no signature .* verifies/);
  });

  it('--extended fetches the extended card with credentials, and exits 6 without', async () => {
    const ok = await cli(['card', `${locked.http}/a2a/echo`, '--extended', '--api-key', API_KEY]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/\(extended\)\n/);
    expect(ok.out).toContain('Echo 1.0.0');
    expect((await cli(['card', `${locked.http}/a2a/echo`, '--extended'])).code).toBe(6);
  });

  it('--json prints the card; an address without a card exits 4', async () => {
    const r = await cli(['card', echo(), '--json']);
    expect(JSON.parse(r.out).name).toBe('Echo');
    expect((await cli(['card', `${base()}/no/agent/here`])).code).toBe(4);
  });
});

describe('--help', () => {
  it.each(['send', 'card', 'tasks'])('%s --help shows examples and exit codes', async (cmd) => {
    const r = await cli([cmd, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Examples:');
    expect(r.out).toContain('Exit codes:');
    expect(r.out).toContain('$AGENTPORT_API_KEY');
  });
});

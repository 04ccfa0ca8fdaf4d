/**
 * The agents Agentport ships (echo, conformance) and agents loaded from a module path, exercised
 * end to end through a real server over JSON-RPC.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TCK_TEXT } from '../../src/agents/conformance/index.js';
import { rpc, startTestServer, userMessage, type TestServer } from '../support/server.js';
import { describeEvent, resultOf, rpcStream } from '../core/tasks/helpers.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

describe('built-in agents', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'conformance', builtin: 'conformance' },
      ],
    });
  });
  afterAll(async () => s?.stop());

  it('echo: returns the message parts unchanged as an artifact named "echo" and completes', async () => {
    const parts = [{ text: 'hello' }, { data: { n: 1, list: [true, null] } }, { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' }];
    const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: { ...userMessage('x'), parts } });
    const t = r.body.result.task;
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.artifacts).toHaveLength(1);
    expect(t.artifacts[0].name).toBe('echo');
    expect(t.artifacts[0].parts).toEqual(parts);
  });

  describe('conformance (routing by messageId prefix)', () => {
    const send = (prefix: string, extra: Record<string, unknown> = {}) =>
      rpc(`${s.http}/a2a/conformance`, 'SendMessage', { message: { ...userMessage('tck'), messageId: `${prefix}-${Math.random().toString(36).slice(2)}`, ...extra } });

    it('tck-complete-task completes with "Hello from TCK"', async () => {
      const t = (await send('tck-complete-task')).body.result.task;
      expect(t.status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.status.message.parts[0].text).toBe(TCK_TEXT.completeTask);
    });

    it.each([
      ['tck-artifact-text', { text: TCK_TEXT.artifactText }],
      ['tck-artifact-file', { raw: 'dGNr', filename: 'output.txt', mediaType: 'text/plain' }],
      ['tck-artifact-file-url', { url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }],
      ['tck-artifact-data', { data: { key: 'value', count: 42 } }],
    ])('%s completes with one artifact carrying the expected part', async (prefix, part) => {
      const t = (await send(prefix)).body.result.task;
      expect(t.status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.artifacts).toHaveLength(1);
      expect(t.artifacts[0].parts).toEqual([part]);
    });

    it('tck-message-response replies with a direct Message (no task)', async () => {
      const r = (await send('tck-message-response')).body.result;
      expect(r.task).toBeUndefined();
      expect(r.message.parts[0].text).toBe(TCK_TEXT.messageResponse);
    });

    it('tck-input-required pauses in INPUT_REQUIRED; tck-complete-task with its taskId completes it', async () => {
      const t = (await send('tck-input-required')).body.result.task;
      expect(t.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(t.status.message.parts[0].text).toBe(TCK_TEXT.inputRequired);
      const done = (await send('tck-complete-task', { taskId: t.id })).body.result.task;
      expect(done.id).toBe(t.id);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('tck-reject-task ends REJECTED', async () => {
      const t = (await send('tck-reject-task')).body.result.task;
      expect(t.status.state).toBe('TASK_STATE_REJECTED');
      expect(t.status.message.parts[0].text).toBe(TCK_TEXT.rejected);
    });

    it('tck-stream-artifact-chunked streams WORKING, two chunks of one artifact (append/lastChunk), COMPLETED', async () => {
      const st = await rpcStream(`${s.http}/a2a/conformance`, 'SendStreamingMessage', {
        message: { ...userMessage('tck'), messageId: `tck-stream-artifact-chunked-${Date.now()}` },
      });
      const events = (await st.untilEnd()).map(resultOf);
      expect(events.map(describeEvent)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:artifact-1', 'artifact:artifact-1', 'status:TASK_STATE_COMPLETED']);
      expect(events[2].artifactUpdate).toMatchObject({ append: false, lastChunk: false, artifact: { parts: [{ text: TCK_TEXT.chunk1 }] } });
      expect(events[3].artifactUpdate).toMatchObject({ append: true, lastChunk: true, artifact: { parts: [{ text: TCK_TEXT.chunk2 }] } });
      const g = await rpc(`${s.http}/a2a/conformance`, 'GetTask', { id: events[0].task.id });
      expect(g.body.result.artifacts[0].parts).toEqual([{ text: TCK_TEXT.chunk1 }, { text: TCK_TEXT.chunk2 }]);
    });

    it('test-resubscribe-message-id stays WORKING until canceled', async () => {
      const r = await rpc(`${s.http}/a2a/conformance`, 'SendMessage', {
        message: { ...userMessage('tck'), messageId: `test-resubscribe-message-id-${Date.now()}` },
        configuration: { returnImmediately: true },
      });
      const t = r.body.result.task;
      expect(t.status.state).toBe('TASK_STATE_WORKING');
      const c = await rpc(`${s.http}/a2a/conformance`, 'CancelTask', { id: t.id });
      expect(c.body.result.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('any other prefix completes with a message naming the messageId', async () => {
      const r = await send('tck-something-new');
      const t = r.body.result.task;
      expect(t.status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.status.message.parts[0].text.startsWith(`${TCK_TEXT.unhandledPrefix}tck-something-new-`)).toBe(true);
    });
  });
});

describe('agents loaded from a module path', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      agents: [
        { id: 'plain', module: fixture('plain-js-agent.mjs') },
        { id: 'named', module: fixture('named-export-agent.mjs') },
        { id: 'probe', module: fixture('probe-agent.ts') },
      ],
    });
  });
  afterAll(async () => s?.stop());

  it('loads a plain JavaScript module exporting default { card, execute }', async () => {
    const card = await (await fetch(`${s.http}/a2a/plain/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('Plain JS');
    const r = await rpc(`${s.http}/a2a/plain`, 'SendMessage', { message: userMessage('shout') });
    expect(r.body.result.message.parts).toEqual([{ text: 'SHOUT' }]);
  });

  it('loads a module exporting the definition as `agent`, and hands the executor request metadata, activated extensions and accepted output modes', async () => {
    const r = await rpc(
      `${s.http}/a2a/named`,
      'SendMessage',
      { message: userMessage('x'), metadata: { k: 'v' }, configuration: { acceptedOutputModes: ['application/json'] } },
      { 'a2a-extensions': 'urn:x:optional, urn:x:unknown' },
    );
    expect(r.body.result.task.artifacts[0].parts[0].data).toEqual({ metadata: { k: 'v' }, extensions: ['urn:x:optional'], accepted: ['application/json'] });
    expect(r.headers.get('a2a-extensions')).toBe('urn:x:optional');
  });

  it('loads a TypeScript module (through the test runner’s loader)', async () => {
    const r = await rpc(`${s.http}/a2a/probe`, 'SendMessage', { message: userMessage('hello probe') });
    expect(r.body.result.task.artifacts[0].parts[0].text).toBe('hello probe');
  });

  it('lists every configured agent with its base URL', async () => {
    const list = await (await fetch(`${s.http}/api/v1/agents`)).json();
    expect(list.agents.map((a: { id: string }) => a.id)).toEqual(['plain', 'named', 'probe']);
  });
});

describe('a module that is not an agent', () => {
  it('makes the server refuse to start, naming the module and what it must export', async () => {
    const module = fixture('not-an-agent.mjs');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-bad-agent-'));
    try {
      await expect(startTestServer({ agents: [{ id: 'bad', module }] }, { dataDir })).rejects.toThrow(/not-an-agent\.mjs must export an AgentDefinition/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

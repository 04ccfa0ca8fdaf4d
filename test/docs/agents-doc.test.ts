/**
 * docs/agents.md promises runnable examples: every agent module in it type-checks against the
 * published types of `agentport/agent` (strict), loads as an agent, and answers as the text around
 * it says. Read from the document itself, so an edit that breaks an example fails here.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { A2AClient, textMessage } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../../src/testing/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
requireBuilt('dist/agents/sdk/index.d.ts');

const examples = [...readFileSync(path.join(root, 'docs/agents.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.startsWith("import { defineAgent } from 'agentport/agent';"));
const nameOf = (code: string) => /name: '([^']+)'/.exec(code)![1]!;

/** What each example answers (by card name); examples that need the network or time are only loaded. */
const CALLS: Record<string, Array<{ text: string; expect: string }>> = {
  Greeter: [{ text: 'Ada', expect: 'message:Hello, Ada!' }],
  Echo: [{ text: 'hi', expect: 'message:You said: hi' }],
  Summary: [{ text: 'one two three', expect: 'TASK_STATE_COMPLETED:3 words' }],
  Writer: [{ text: 'rain', expect: 'TASK_STATE_COMPLETED:A few words about rain.' }],
  Report: [{ text: 'go', expect: 'TASK_STATE_COMPLETED:Report (0 file(s) received)' }],
  Booking: [
    { text: 'a table', expect: 'TASK_STATE_INPUT_REQUIRED:' },
    { text: 'a table on friday', expect: 'TASK_STATE_COMPLETED:' },
  ],
  Quiz: [{ text: 'start', expect: 'TASK_STATE_INPUT_REQUIRED:' }],
  Mail: [{ text: 'inbox', expect: 'TASK_STATE_AUTH_REQUIRED:' }],
  Divide: [
    { text: '6 / 3', expect: 'TASK_STATE_COMPLETED:2' },
    { text: '6 / 0', expect: 'TASK_STATE_FAILED:' },
    { text: 'six', expect: 'TASK_STATE_REJECTED:' },
  ],
  Accounts: [
    { text: 'balance', expect: 'message:Balance: 42.' },
    { text: 'transfer 5', expect: 'message:Transfer booked.' },
  ],
};

describe('docs/agents.md examples', () => {
  let dir: string;
  let server: TestServer;
  const ids = examples.map((code) => nameOf(code).toLowerCase());

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agentport-doc-'));
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(root, path.join(dir, 'node_modules/agentport'), 'dir');
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    for (const [i, code] of examples.entries()) {
      writeFileSync(path.join(dir, `${ids[i]}.ts`), code);
      const js = ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
      writeFileSync(path.join(dir, `${ids[i]}.mjs`), js);
    }
    writeFileSync(path.join(dir, 'agentport.yaml'), `agents:\n${ids.map((id) => `  - id: ${id}\n    module: ./${id}.mjs\n`).join('')}`);
    server = await startTestServer({ cwd: dir, auth: 'none' });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('there are examples for every helper the document describes', () => {
    expect(examples.length).toBeGreaterThanOrEqual(12);
    const all = examples.join('\n');
    for (const helper of [
      'reply(',
      'working(',
      'artifact(',
      'append:',
      'complete(',
      'askInput(',
      'nextMessage(',
      'requireAuth(',
      'fail(',
      'reject(',
      'signal',
      'sleep(',
      'skillOf',
      'resumable',
      'resumed',
      'raw:',
      'data:',
      'url:',
    ]) {
      expect(all, helper).toContain(helper);
    }
  });

  it('every example type-checks (strict, NodeNext) against agentport/agent', () => {
    const program = ts.createProgram(
      ids.map((id) => path.join(dir, `${id}.ts`)),
      {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules/@types')],
      },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  }, 60_000);

  it('every example answers as documented', async () => {
    for (const [i, code] of examples.entries()) {
      const calls = CALLS[nameOf(code)] ?? [];
      for (const call of calls) {
        const client = await A2AClient.connect(server.agentUrl(ids[i]!));
        const r = await client.sendMessage({ message: textMessage(call.text) });
        client.close();
        const [kind, text] = call.expect.split(/:(.*)/s) as [string, string];
        if (kind === 'message') {
          expect('message' in r && r.message.parts[0]?.text, `${ids[i]} "${call.text}"`).toBe(text);
          continue;
        }
        if (!('task' in r)) throw new Error(`${ids[i]} "${call.text}": expected a task`);
        expect(r.task.status.state, `${ids[i]} "${call.text}"`).toBe(kind);
        if (text) expect(r.task.artifacts?.[0]?.parts.map((p) => p.text ?? '').join(''), `${ids[i]} "${call.text}"`).toBe(text);
      }
    }
  }, 60_000);
});

/**
 * `agentport init` in-process: what it writes for each template (the slow end-to-end run, with npm
 * install and the project's own tests, is init-scaffold.test.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { PACKAGE_ROOT, TEMPLATES } from '../../src/cli/init/scaffold.js';
import { loadConfig } from '../../src/config/index.js';
import { fakeIO } from './fake-io.js';

const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentport-init-unit-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('agentport init', () => {
  it.each(Object.keys(TEMPLATES))('%s: a complete project, every placeholder filled', async (template) => {
    const cwd = tempDir();
    const io = fakeIO(cwd);
    await runCli(['node', 'agentport', 'init', 'My Agent', '--template', template], io);
    expect(io.exits).toEqual([]);
    const dir = path.join(cwd, 'My Agent');
    const files = filesUnder(dir);
    for (const f of ['.gitignore', 'README.md', 'agentport.yaml', 'package.json', 'test/agent.test.ts', 'tsconfig.json']) expect(files).toContain(f);
    // The llm template has no code: its agent is in agentport.yaml alone.
    expect(files.filter((f) => f.startsWith('agents/') && f.endsWith('.ts'))).toHaveLength(template === 'llm' ? 0 : 1);
    expect(files).not.toContain('ABOUT.md');
    expect(files).not.toContain('TRY.txt');
    for (const f of files) expect(readFileSync(path.join(dir, f), 'utf8'), f).not.toMatch(/\{\{\w+\}\}/);

    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.name).toBe('my-agent');
    expect(pkg.dependencies.agentport).toBe(`file:${PACKAGE_ROOT.replace(/[\\/]$/, '')}`);
    expect(Object.keys(pkg.devDependencies)).toContain('tsx');
    expect(pkg.scripts.start).toBe('agentport serve');
    expect(pkg.scripts.dev).toBe('agentport dev');
    // The agent the config names is the file that was written.
    const module = /module: (\S+)/.exec(readFileSync(path.join(dir, 'agentport.yaml'), 'utf8'))?.[1];
    if (template !== 'llm') expect(existsSync(path.join(dir, module!))).toBe(true);
    expect(io.out).toContain('npm install');
  });

  it('llm: a YAML-only project whose agent is a model with the echo agent as its tool, and a README of its own', async () => {
    const cwd = tempDir();
    const io = fakeIO(cwd);
    await runCli(['node', 'agentport', 'init', 'assistant', '--template', 'llm'], io);
    expect(io.exits).toEqual([]);
    const dir = path.join(cwd, 'assistant');
    expect(filesUnder(dir)).toEqual(['.gitignore', 'README.md', 'agentport.yaml', 'package.json', 'test/agent.test.ts', 'tsconfig.json']);
    expect(io.out).toContain("serves the agent 'assistant'");
    // The configuration loads as written, its model and key from the environment.
    const config = loadConfig({ cwd: dir, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-x' } });
    const assistant = config.agents.find((a) => a.id === 'assistant');
    expect(assistant?.llm).toMatchObject({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-x', model: 'gpt-4.1-mini', tools: ['echo'] });
    expect(config.agents.find((a) => a.id === 'echo')?.builtin).toBe('echo');
    // Its own README (no agents/ file to describe), every placeholder filled.
    const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('npx agentport card http://127.0.0.1:8080/a2a/assistant');
    expect(readme).not.toContain('agents/');
    // Without the variables, the public OpenAI endpoint and no key.
    const defaults = loadConfig({ cwd: dir, env: {} }).agents.find((a) => a.id === 'assistant');
    expect(defaults?.llm?.baseUrl).toBe('https://api.openai.com/v1');
  });

  it('takes a relative file: spec from where it runs', async () => {
    const cwd = tempDir();
    const io = fakeIO(cwd);
    await runCli(['node', 'agentport', 'init', 'p', '--agentport', 'file:./agentport-0.1.0.tgz'], io);
    const pkg = JSON.parse(readFileSync(path.join(cwd, 'p/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.agentport).toBe(`file:${path.join(cwd, 'agentport-0.1.0.tgz')}`);
  });

  it('fills an empty folder, or one holding only .git, and refuses any other', async () => {
    const cwd = tempDir();
    mkdirSync(path.join(cwd, 'repo/.git'), { recursive: true });
    const ok = fakeIO(cwd);
    await runCli(['node', 'agentport', 'init', 'repo'], ok);
    expect(ok.exits).toEqual([]);

    mkdirSync(path.join(cwd, 'busy'));
    writeFileSync(path.join(cwd, 'busy/notes.txt'), 'mine');
    const refused = fakeIO(cwd);
    await runCli(['node', 'agentport', 'init', 'busy'], refused);
    expect(refused.exits).toEqual([2]);
    expect(refused.err).toContain('is not empty (notes.txt)');
    expect(filesUnder(path.join(cwd, 'busy'))).toEqual(['notes.txt']);
  });

  it('refuses an unknown template with the list of templates', async () => {
    const io = fakeIO(tempDir());
    await runCli(['node', 'agentport', 'init', 'x', '--template', 'chat'], io);
    expect(io.exits).toEqual([2]);
    expect(io.err).toBe('--template: one of echo, streaming, input-required, data, llm (got "chat")\n');
  });
});

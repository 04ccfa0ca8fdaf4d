/**
 * The real command as a child process. It runs the compiled CLI, so these tests need `npm run build`
 * first (the `test` script does that); without dist/ they are skipped, and program.test.ts covers
 * the same behaviour in-process.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/agentport.js');
requireBuilt('dist/cli/main.js');
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agentport-bin-'));

function run(args: string[], cwd: string, script = bin) {
  const env = { ...process.env };
  delete env.AGENTPORT_CONFIG;
  return spawnSync(process.execPath, [script, ...args], { cwd, env, encoding: 'utf8', timeout: 20_000 });
}

describe('bin/agentport.js (built CLI)', () => {
  it('--help exits 0 and shows commands and examples', () => {
    const result = run(['--help'], tempDir());
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: agentport');
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toContain('Examples:');
  });

  it('serve --config bad.yaml exits 2 and names the key on stderr', () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, 'bad.yaml'), 'server:\n  port: 123456\n  colour: blue\n');
    const result = run(['serve', '--config', 'bad.yaml'], cwd);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('server.port: must be an integer from 0 to 65535 (got 123456)');
    expect(result.stderr).toContain('server.colour: unknown key');
    expect(result.stderr).toContain('Fix the file or run with --help');
    expect(result.stdout).toBe('');
  });
});

describe('bin/agentport.js without a build', () => {
  it('says how to build instead of a stack trace', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'bin'));
    copyFileSync(bin, path.join(dir, 'bin/agentport.js'));
    const result = run(['--help'], dir, path.join(dir, 'bin/agentport.js'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Run npm install (it builds)');
  });
});

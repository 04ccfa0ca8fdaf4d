/**
 * deploy/check-install.mjs, and deploy/Dockerfile's `npm ci` step failing on the spot when npm
 * stops half-way yet exits 0 (seen here: a TLS failure ending in "npm error Exit handler never
 * called!", after which the build failed two steps later at `tsc: not found`). The step is run as
 * written in the Dockerfile, with a stand-in `npm` doing just that.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cluster.js';

const CHECK = path.join(ROOT, 'deploy/check-install.mjs');

const LOCK = {
  name: 'p',
  lockfileVersion: 3,
  packages: {
    '': { name: 'p', dependencies: { a: '1.0.0' }, devDependencies: { b: '2.0.0' } },
    'node_modules/a': { version: '1.0.0' },
    'node_modules/a/node_modules/nested': { version: '3.0.0' },
    'node_modules/b': { version: '2.0.0', dev: true },
    'node_modules/other-platform': { version: '4.0.0', optional: true },
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentport-check-install-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A fresh project dir with LOCK and the given installed packages (`where` → version). */
function project(name: string, installed: Record<string, string>): string {
  const p = path.join(dir, name);
  mkdirSync(p);
  writeFileSync(path.join(p, 'package-lock.json'), JSON.stringify(LOCK));
  for (const [where, version] of Object.entries(installed)) {
    mkdirSync(path.join(p, where), { recursive: true });
    writeFileSync(path.join(p, where, 'package.json'), JSON.stringify({ version }));
  }
  return p;
}

const check = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [CHECK, ...args], { cwd, encoding: 'utf8' });
const complete = { 'node_modules/a': '1.0.0', 'node_modules/a/node_modules/nested': '3.0.0', 'node_modules/b': '2.0.0' };

describe('deploy/check-install.mjs', () => {
  it('passes when every locked package is installed at its version; optional ones may be absent', () => {
    const r = check(project('complete', complete));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 locked packages installed');
  });

  it('fails naming a missing package, nested ones included', () => {
    const { 'node_modules/a/node_modules/nested': _, ...rest } = complete;
    const r = check(project('nested-missing', rest));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('node_modules/a/node_modules/nested: not installed');
  });

  it('fails naming a package installed at another version than the lock', () => {
    const r = check(project('wrong-version', { ...complete, 'node_modules/a': '1.0.1' }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('node_modules/a: 1.0.1 installed, 1.0.0 locked');
  });

  it('requires dev packages unless --omit=dev (after `npm prune --omit=dev`)', () => {
    const { 'node_modules/b': _, ...pruned } = complete;
    const p = project('pruned', pruned);
    expect(check(p).status).toBe(1);
    expect(check(p).stderr).toContain('node_modules/b: not installed');
    expect(check(p, '--omit=dev').status).toBe(0);
  });
});

describe("deploy/Dockerfile's `npm ci` step", () => {
  // The RUN instruction that runs `npm ci`, continuation lines joined, as the shell gets it.
  const dockerfile = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const step = /^RUN (.*npm ci .*)$/m.exec(dockerfile)?.[1];

  function runStep(name: string, npm: string): ReturnType<typeof spawnSync> {
    const p = project(name, {});
    rmSync(path.join(p, 'node_modules'), { recursive: true, force: true });
    mkdirSync(path.join(p, 'deploy'));
    copyFileSync(CHECK, path.join(p, 'deploy/check-install.mjs'));
    const bin = path.join(p, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\n${npm}\n`);
    chmodSync(path.join(bin, 'npm'), 0o755);
    return spawnSync('sh', ['-c', step!], { cwd: p, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  }

  const writePackage = (where: string, version: string) => `mkdir -p ${where} && echo '{"version":"${version}"}' > ${where}/package.json`;

  it('fails, naming what is missing, when npm stops half-way and exits 0', () => {
    expect(step).toBeDefined();
    // `npm ci` installs one package of three, prints npm's message, exits 0; `npm rebuild` succeeds.
    const r = runStep('exit-handler', `if [ "$1" = ci ]; then ${writePackage('node_modules/a', '1.0.0')}; echo 'npm error Exit handler never called!' >&2; fi; exit 0`);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('node_modules/b: not installed');
  });

  it('passes when npm installs everything', () => {
    const r = runStep(
      'installed',
      `if [ "$1" = ci ]; then ${Object.entries(complete)
        .map(([where, version]) => writePackage(where, version))
        .join(' && ')}; fi; exit 0`,
    );
    expect(r.status, String(r.stderr)).toBe(0);
  });
});

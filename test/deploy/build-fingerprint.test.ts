/**
 * What test/deploy/image.test.ts trusts when it does not build the image again: the fingerprint of
 * the build's inputs (scripts/image-build.mjs) changes with every file the build context takes in,
 * and with nothing it leaves out. Read on a copy of the Dockerfile and its ignore file, in a temp tree.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFingerprint } from '../../scripts/image-build.mjs';
import { ROOT } from '../support/cluster.js';

describe('the image build fingerprint', () => {
  let tree: string;
  let before: string;
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    writeFileSync(path.join(tree, rel), text);
  };

  beforeAll(() => {
    tree = mkdtempSync(path.join(tmpdir(), 'agentport-fingerprint-'));
    for (const rel of ['deploy/Dockerfile', 'deploy/Dockerfile.dockerignore']) cpSync(path.join(ROOT, rel), path.join(tree, rel));
    write('package.json', '{}');
    write('src/server/start.ts', 'export const a = 1;\n');
    write('console/src/main.ts', 'export {};\n');
    write('node_modules/x/index.js', 'x');
    write('docs/readme.md', 'docs');
    before = buildFingerprint(tree);
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it('is the same for the same tree, and for changes outside the build context', () => {
    expect(buildFingerprint(tree)).toBe(before);
    write('node_modules/x/index.js', 'y');
    write('docs/readme.md', 'changed');
    write('test/new.test.ts', 'new');
    expect(buildFingerprint(tree)).toBe(before);
  });

  it.each([
    ['an edited source file', () => write('src/server/start.ts', 'export const a = 2;\n')],
    ['a new source file', () => write('src/server/other.ts', 'export {};\n')],
    ['a file made executable', () => chmodSync(path.join(tree, 'console/src/main.ts'), 0o755)],
    ['a symbolic link in the context', () => symlinkSync('start.ts', path.join(tree, 'src/server/link.ts'))],
    ['the lock file appearing', () => write('package-lock.json', '{}')],
    ['the Dockerfile', () => write('deploy/Dockerfile', '# changed\n')],
    ['a copied deploy script', () => write('deploy/healthcheck.mjs', 'changed')],
  ])('changes with %s', (_what, change) => {
    const was = buildFingerprint(tree);
    change();
    expect(buildFingerprint(tree)).not.toBe(was);
  });
});

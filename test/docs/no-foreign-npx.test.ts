/**
 * No doc shows a command that runs someone else's package: `agentport` on the npm registry is an
 * unrelated package (docs/decisions/0040-publishable-package-name.md), so `npx agentport <command>`
 * appears in README.md and docs/ neither in a code block nor as an inline command. The project
 * templates (templates/init) may use it: there it resolves to the project's own dependency.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownFiles(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

/** `npx agentport` followed by a sub-command: a command a reader would run. */
const COMMAND = /npx agentport(?!-)\s+[a-z]/;

function offending(text: string): string[] {
  const found: string[] = [];
  let inFence = false;
  for (const [i, line] of text.split('\n').entries()) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    else if (inFence && COMMAND.test(line)) found.push(`${i + 1}: ${line.trim()}`);
    else if (!inFence) for (const span of line.match(/`[^`]+`/g) ?? []) if (COMMAND.test(span)) found.push(`${i + 1}: ${span}`);
  }
  return found;
}

describe('docs name no foreign package', () => {
  it('the check finds a command in a code block and inline, and lets a mention or the future name pass', () => {
    expect(offending('```sh\nnpx agentport init x\n```')).toEqual(['2: npx agentport init x']);
    expect(offending('run `npx agentport send u "hi"` now')).toEqual(['1: `npx agentport send u "hi"`']);
    expect(offending('never `npx agentport …` elsewhere; once published `npx agentport-server init`')).toEqual([]);
  });

  it('README.md and docs/**/*.md show no `npx agentport <command>`', () => {
    const files = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))];
    const found = files.flatMap((f) => offending(readFileSync(f, 'utf8')).map((o) => `${path.relative(root, f)}:${o}`));
    expect(found).toEqual([]);
  });
});

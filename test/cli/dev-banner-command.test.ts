import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliCommandFor } from '../../src/cli/dev-banner.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('agentport dev: the "Try:" command names a command that runs this package', () => {
  it('in a project that depends on agentport: npx agentport (its node_modules/.bin)', () => {
    const project = mkdtempSync(path.join(tmpdir(), 'agentport-banner-'));
    made.push(project);
    mkdirSync(path.join(project, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(path.join(project, 'node_modules', '.bin', 'agentport'), '');
    expect(cliCommandFor(project, '/opt/agentport/bin/agentport.js')).toBe('npx agentport');
  });

  it('in the clone itself: its bin by a relative path; elsewhere: by its absolute path, never a bare npx agentport', () => {
    const clone = mkdtempSync(path.join(tmpdir(), 'agentport-clone-'));
    made.push(clone);
    expect(cliCommandFor(clone, path.join(clone, 'bin', 'agentport.js'))).toBe(`node ${path.join('bin', 'agentport.js')}`);
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'agentport-elsewhere-'));
    made.push(elsewhere);
    expect(cliCommandFor(elsewhere, '/opt/agentport/bin/agentport.js')).toBe('node /opt/agentport/bin/agentport.js');
  });
});

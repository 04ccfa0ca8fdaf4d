import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { tempDir, writeFile } from './helpers.js';
import { availableParallelism } from 'node:os';

/** The commit thread's default (ADR 0062): on where a second core can run it. */
const onByDefault = availableParallelism() > 1;

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/configuration.md');

describe('docs/configuration.md', () => {
  it('has an example file that loads', () => {
    const blocks = [...readFileSync(docs, 'utf8').matchAll(/```yaml\n# agentport\.yaml\n([\s\S]*?)```/g)];
    expect(blocks).toHaveLength(1);
    const dir = tempDir();
    writeFile(dir, 'agents/support.js', 'export default {};\n');
    const file = writeFile(dir, 'agentport.yaml', blocks[0]![1]!);
    const config = loadConfig({ file, env: { SUPPORT_CONSOLE_KEY: 'k'.repeat(32) } });
    expect(config.agents.map((a) => a.id)).toEqual(['support', 'echo']);
    expect(config.server.port).toBe(8080);
    expect(config.storage).toEqual({ driver: 'sqlite', file: '/var/lib/agentport/agentport.db', synchronous: 'normal', commitThread: onByDefault });
    expect(config.limits.bodyBytes).toBe(8 * 1024 * 1024);
  });
});

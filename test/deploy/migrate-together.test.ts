/**
 * The Helm chart runs `agentport db migrate` in an init container of every pod, so a fresh
 * install or an upgrade migrates from several pods at once. Here three `db migrate` runs start
 * together through deploy/entrypoint.sh (as the init container runs it) on one fresh PostgreSQL
 * schema: all must succeed and leave the schema up to date.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, ensureBuilt, ROOT, uniqueName } from '../support/cluster.js';

const execFileAsync = promisify(execFile);
const PG_URL = process.env.AGENTPORT_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENTRYPOINT = path.join(ROOT, 'deploy/entrypoint.sh');
const schema = uniqueName('deploy_migrate');
let dir: string | undefined;

afterAll(async () => {
  await dropSchema(PG_URL, schema);
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function entrypoint(config: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTPORT_CONFIG: config };
  try {
    const { stdout, stderr } = await execFileAsync('sh', [ENTRYPOINT, ...args], { env, timeout: 60_000 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('db migrate from several pods at once (the chart`s init containers)', () => {
  it('three concurrent runs on a fresh schema all succeed, and the schema is up to date', async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'agentport-migrate-'));
    const config = path.join(dir, 'agentport.yaml');
    await writeFile(config, JSON.stringify({ storage: { driver: 'postgres', url: PG_URL, schema, migrate: false } }));

    const runs = await Promise.all([1, 2, 3].map(() => entrypoint(config, 'db', 'migrate')));
    for (const r of runs) expect(r.code, r.out).toBe(0);
    // Each migration is applied by exactly one of them; the others find it done.
    const applied = runs.map((r) => Number(/(\d+) migrations? applied/.exec(r.out)?.[1] ?? 0));
    expect(
      applied.filter((n) => n > 0),
      runs.map((r) => r.out).join('\n'),
    ).toHaveLength(1);

    const status = await entrypoint(config, 'db', 'status');
    expect(status.code, status.out).toBe(0);
    expect(status.out).toContain('up to date');
  }, 120_000);
});

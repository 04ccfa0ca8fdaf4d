/**
 * The built CLI loads only what its command uses (issue 26: every test that spawns `agentport`
 * pays for its start-up). `--help`, a command's help and a `card` that finds no agent load
 * neither the server (its store drivers, HTTP and MCP stacks) nor the gRPC client: the child runs
 * with test/support/module-loads/record.cjs, which lists every module file it loads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBuilt, ROOT } from '../support/fresh-build.js';

requireBuilt('dist/cli/main.js');
const work = mkdtempSync(path.join(tmpdir(), 'agentport-lazy-loads-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Packages (by their folder under node_modules) and built files none of these runs needs. */
const HEAVY = [
  'node_modules/@grpc/grpc-js/',
  'node_modules/@grpc/proto-loader/',
  'node_modules/protobufjs/',
  'node_modules/kysely/',
  'node_modules/fastify/',
  'node_modules/@modelcontextprotocol/server/',
  'node_modules/better-sqlite3/',
  'node_modules/@duckdb/',
  'node_modules/pg/',
  'node_modules/ioredis/',
  'node_modules/oidc-provider/',
  'node_modules/@opentelemetry/sdk-trace-base/',
  'dist/server/start.js',
];

let runs = 0;
/** Runs the CLI with the recorder; its exit status and the files it loaded (relative to the checkout). */
function loadsOf(args: string[]): { status: number | null; stderr: string; loaded: string[] } {
  const file = path.join(work, `loads-${++runs}.txt`);
  const env: NodeJS.ProcessEnv = { ...process.env, MODULE_LOADS_FILE: file };
  delete env.AGENTPORT_CONFIG;
  const r = spawnSync(process.execPath, ['--require', path.join(ROOT, 'test/support/module-loads/record.cjs'), path.join(ROOT, 'bin/agentport.js'), ...args], {
    cwd: work,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const loaded = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))].map((f) => path.relative(ROOT, f));
  return { status: r.status, stderr: r.stderr, loaded };
}

const heavyIn = (loaded: string[]) => HEAVY.filter((h) => loaded.some((f) => f.startsWith(h)));

describe('what the CLI loads', () => {
  it.each(['--help', 'card --help', 'send --help', 'serve --help', 'init --help'])(
    'agentport %s loads no server and no gRPC client',
    (args) => {
      const { status, stderr, loaded } = loadsOf(args.split(' '));
      expect(status, stderr).toBe(0);
      // the recorder sees both kinds of module: otherwise the absences below would prove nothing
      expect(loaded).toContain('dist/cli/program.js');
      expect(loaded.some((f) => f.startsWith('node_modules/commander/'))).toBe(true);
      expect(heavyIn(loaded)).toEqual([]);
    },
    60_000,
  );

  it('agentport card <url> with no agent there fails (exit 4) without loading the gRPC client', () => {
    const { status, stderr, loaded } = loadsOf(['card', 'http://127.0.0.1:9/a2a/nobody']);
    expect(status, stderr).toBe(4);
    expect(loaded).toContain('dist/client/card-resolver.js');
    expect(heavyIn(loaded)).toEqual([]);
  }, 60_000);
});

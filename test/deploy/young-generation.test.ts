/**
 * Every launch line the product ships starts node with the young generation of ADR 0081
 * (heap-settings.ts's SHIPPED_YOUNG_GENERATION): V8 fixes it before any of our code runs, so only
 * node's command line can choose it. What node really started with is read from the process itself:
 * a preload given through NODE_OPTIONS prints its execArgv and exits before the CLI loads.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_YOUNG_GENERATION } from '../../src/server/heap-settings.js';
import { shippedNodeOptions } from '../../bench/lib/shipped-node-options.mjs';
import { ensureBuilt, ROOT } from '../support/cluster.js';

const BIN = path.join(ROOT, 'bin/agentport.js');
const ENTRYPOINT = path.join(ROOT, 'deploy/entrypoint.sh');
const FLAG = '--max-semi-space-size=64';

let dir: string;
let printer: string;

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(path.join(tmpdir(), 'agentport-young-'));
  printer = path.join(dir, 'print-exec-argv.cjs');
  await writeFile(printer, 'process.stdout.write(JSON.stringify(process.execArgv));\nprocess.exit(0);\n');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The execArgv of the node that `command args` ends up running, with `nodeOptions` before the printer. */
function execArgvOf(command: string, args: string[], nodeOptions = ''): string[] {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `${nodeOptions} --require ${printer}`.trim() };
  delete env.AGENTPORT_DATA_DIR;
  delete env.AGENTPORT_HOST;
  const r = spawnSync(command, args, { env, encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

describe('the shipped young generation (ADR 0081)', () => {
  it('is the flag the server names in its debug line', () => {
    expect(SHIPPED_YOUNG_GENERATION).toBe(FLAG);
  });

  it('bin/agentport.js run as a command (the npm-linked `agentport` on Linux) starts node with it, through env -S', () => {
    expect(readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe(`#!/usr/bin/env -S node ${FLAG}`);
    expect(execArgvOf(BIN, ['--version'])).toEqual([FLAG]);
    // the benches start the product with the same options (bench/lib/shipped-node-options.mjs)
    expect(shippedNodeOptions(BIN)).toEqual([FLAG]);
  });

  it('the benches start a tree whose shebang names no options with none', async () => {
    const plain = path.join(dir, 'plain.js');
    await writeFile(plain, '#!/usr/bin/env node\nconsole.log(1);\n');
    expect(shippedNodeOptions(plain)).toEqual([]);
    const two = path.join(dir, 'two.js');
    await writeFile(two, '#!/usr/bin/env -S node --max-semi-space-size=8  --stack-size=2000\n');
    expect(shippedNodeOptions(two)).toEqual(['--max-semi-space-size=8', '--stack-size=2000']);
  });

  it('the image entrypoint starts node with it, unless NODE_OPTIONS chooses a size (which the command line would override)', () => {
    expect(execArgvOf('sh', [ENTRYPOINT, 'card', 'http://127.0.0.1:9/'])).toEqual([FLAG]);
    expect(execArgvOf('sh', [ENTRYPOINT, '--port', '9'])).toEqual([FLAG]);
    expect(execArgvOf('sh', [ENTRYPOINT, 'card', 'http://127.0.0.1:9/'], '--max-semi-space-size=16')).toEqual([]);
    expect(execArgvOf('sh', [ENTRYPOINT, 'card', 'http://127.0.0.1:9/'], '--max_semi_space_size=16')).toEqual([]);
    // another option in NODE_OPTIONS is no choice of a size
    expect(execArgvOf('sh', [ENTRYPOINT, 'card', 'http://127.0.0.1:9/'], '--max-old-space-size=512')).toEqual([FLAG]);
  });

  it("package.json's scripts that start the CLI pass it to node", async () => {
    const { scripts } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const starting = Object.entries(scripts).filter(([, line]) => line.includes('bin/agentport.js'));
    expect(starting.map(([name]) => name).sort()).toEqual(['agentport', 'serve:acts', 'serve:tck', 'start']);
    for (const [name, line] of starting) expect(line, name).toMatch(new RegExp(`^node ${FLAG} bin/agentport\\.js( |$)`));
  });

  it('the systemd unit starts node with it', async () => {
    const unit = await readFile(path.join(ROOT, 'deploy/systemd/agentport.service'), 'utf8');
    const execStart = unit.split('\n').filter((l) => l.startsWith('ExecStart='));
    expect(execStart).toEqual([`ExecStart=/usr/bin/node ${FLAG} /opt/agentport/bin/agentport.js serve --data-dir /var/lib/agentport`]);
  });

  it("npm's Windows shims (cmd-shim, as npm installs the bin) pass it to node", async () => {
    // npm's own copy, beside the node running the tests (Debian/NodeSource layout: <prefix>/lib/node_modules/npm)
    const npmDir = path.join(path.dirname(process.execPath), '../lib/node_modules/npm');
    if (!existsSync(path.join(npmDir, 'node_modules/cmd-shim'))) throw new Error(`npm's cmd-shim is not under ${npmDir}: install npm beside node to check the Windows shims`);
    const cmdShim = createRequire(path.join(npmDir, 'package.json'))('cmd-shim') as (from: string, to: string) => Promise<void>;
    const shim = path.join(dir, 'bin', 'agentport');
    await cmdShim(BIN, shim);
    const cmd = await readFile(`${shim}.cmd`, 'utf8');
    expect(cmd).toMatch(new RegExp(`"%_prog%" ${FLAG} "%dp0%\\\\[^"]*agentport\\.js" %\\*`));
    const ps1 = await readFile(`${shim}.ps1`, 'utf8');
    expect(ps1).toContain(`"node$exe" ${FLAG} "$basedir/`);
  });

  it("the server's debug line says which young generation it runs with: the shipped one as a command (over NODE_OPTIONS), V8's default or NODE_OPTIONS' under a bare `node`", async () => {
    const asCommand = await youngGenerationLine(BIN, []);
    expect(asCommand).toBe(`young generation: ${FLAG} from the node options`);
    const bare = await youngGenerationLine(process.execPath, [BIN]);
    expect(bare).toBe(`young generation: V8's default semi-spaces; the shipped launch lines start node with ${FLAG} (ADR 0081)`);
    // V8 reads NODE_OPTIONS before the command line, so the shebang's size is the one it runs with
    const both = await youngGenerationLine(BIN, [], '--max-semi-space-size=16');
    expect(both).toBe(`young generation: ${FLAG} from the node options`);
    const fromEnvironment = await youngGenerationLine(process.execPath, [BIN], '--max-semi-space-size=16');
    expect(fromEnvironment).toBe('young generation: --max-semi-space-size=16 from the node options');
  }, 60_000);
});

/** Starts `command ...args serve` at debug level on free ports, returns its "young generation" log line and stops it. */
async function youngGenerationLine(command: string, args: string[], nodeOptions?: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(dir, 'data-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.AGENTPORT_CONFIG;
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  const child = spawn(command, [...args, 'serve', '--port', '0', '--grpc-port', '0', '--data-dir', dataDir, '--auth', 'none', '--log-level', 'debug'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  try {
    return await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.includes('young generation'));
        if (line) resolve((JSON.parse(line) as { msg: string }).msg);
        else if (out.includes('listening')) reject(new Error(`listening without a young generation line:\n${out}`));
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before the line: ${err}${out}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The first ten minutes, for real: `npm pack` this package, `agentport init` a project that
 * depends on the tarball, `npm install` it from the registry (prefer-offline), then the project's
 * own `npm test`, `npm start` and `npm run dev` (an edit of its TypeScript agent is served without
 * a restart). One install serves every template: the other scaffolds share its node_modules.
 * Slow by nature (an npm install): explicit timeouts throughout.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../support/fresh-build.js';
import { A2AClient, apiKeyAuth, textMessage } from '../../src/client/index.js';
import { spawnWatched } from '../support/spawned.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/agentport.js');
requireBuilt('dist/cli/main.js', 'dist/index.js');

interface PackedFile {
  path: string;
  size: number;
}

/**
 * npm, without the variables a surrounding `npm test` sets for its own package, and without npm's
 * own extra work none of these runs is about (the audit and funding requests after an install,
 * the check for a newer npm), whatever the machine's npmrc says.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') && k !== 'AGENTPORT_CONFIG' && k !== 'INIT_CWD') env[k] = v;
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command run without blocking this worker's event loop: an install or a project's test takes
 * a minute, and a synchronous wait that long starves the test runner's own messages (vitest then
 * fails the run with "Timeout calling onTaskUpdate").
 */
function run(command: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; timeout: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** One of the other templates' `npm test`, run while the tests before theirs go on. */
interface OtherRun {
  /** What `agentport init` printed for it. */
  out: string;
  /** Its package.json's test script, and the first project's. */
  script: string;
  firstScript: string;
  /** The script's half after `tsc && `, run as the test; undefined when the script is not of that shape (then not run). */
  tests: string | undefined;
  typecheck: Ran;
  test: Ran | undefined;
}

function npm(args: string[], cwd: string, timeout: number, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return run('npm', args, { cwd, env: { ...npmEnv(), ...env }, timeout });
}

/**
 * better-sqlite3's install step fetches its prebuilt binary from GitHub releases (prebuild-install)
 * and compiles SQLite from source when it cannot: on the test machines, with no route to GitHub,
 * the scaffold's install spent most of its time (and more than its 300 s at load 30) in the C
 * compiler. This puts the binary this checkout already has (the same version, built for this Node's
 * ABI) where prebuild-install looks for a local prebuild first, named as the download would be;
 * the install step still runs. The environment that points prebuild-install at it, or none when
 * the checkout has no binary to offer.
 */
async function localBetterSqlitePrebuild(dir: string): Promise<NodeJS.ProcessEnv> {
  const pkg = path.join(root, 'node_modules/better-sqlite3');
  const binary = 'build/Release/better_sqlite3.node';
  if (!existsSync(path.join(pkg, binary))) return {};
  const { version } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
  const prebuilds = path.join(dir, 'prebuilds');
  mkdirSync(prebuilds);
  const tarball = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = await run('tar', ['-czf', path.join(prebuilds, tarball), '-C', pkg, binary], { timeout: 60_000 });
  if (tar.status !== 0) throw new Error(`tar of ${binary} failed:\n${tar.stderr}`);
  // prebuild-install's per-package setting (npm warns that it does not know it, and passes it on).
  return { npm_config_better_sqlite3_local_prebuilds: prebuilds };
}

async function init(dir: string, template: string, tarball: string): Promise<string> {
  const r = await run(process.execPath, [bin, 'init', dir, '--template', template, '--agentport', `file:${tarball}`], { env: npmEnv(), timeout: 60_000 });
  if (r.status !== 0) throw new Error(`agentport init failed:\n${r.stderr}`);
  return r.stdout;
}

/** The templates scaffolded beside the first project (streaming), sharing its install. */
const OTHERS = ['echo', 'input-required', 'data', 'llm'];

describe('agentport init, from a packed tarball', () => {
  let work: string;
  let tarball: string;
  let packed: { files: PackedFile[]; size: number };
  let project: string;
  let install: Ran;
  /** What `agentport init` printed for each of OTHERS (a failed init rejects, naming it). */
  const scaffolded = new Map<string, Promise<string>>();

  /** The first project's `npm test` and each of OTHERS' (testOther), started at the end of `beforeAll`. */
  let ownTest: Promise<Ran>;
  const otherTests = new Map<string, Promise<OtherRun>>();

  /**
   * The other templates' `npm test` is the first project's script (`tsc && tsx --test ...`, the
   * same package.json and tsconfig.json from templates/init/common), whose whole run the test
   * above proves. Its `tsc` half runs once for the four: one program with their sources, under
   * that tsconfig's options, where four `tsc` runs each parsed the same ~790 declaration files
   * (the package's and Node's) again for a few files of their own. An error is reported with its
   * file, so each template still fails on its own errors only.
   */
  let typechecked: Promise<Ran> | undefined;
  function typecheckOthers(): Promise<Ran> {
    typechecked ??= (async () => {
      const config = path.join(work, 'tsconfig.templates.json');
      writeFileSync(
        config,
        JSON.stringify({
          extends: './writer-project/tsconfig.json',
          // `types: ["node"]` is looked up beside the tsconfig: the shared install's @types.
          compilerOptions: { typeRoots: ['./writer-project/node_modules/@types'] },
          include: OTHERS.flatMap((t) => [`${t}-project/agents`, `${t}-project/test`]),
        }),
      );
      return run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', config, '--pretty', 'false'], { cwd: work, env: npmEnv(), timeout: 180_000 });
    })();
    return typechecked;
  }

  /**
   * One of OTHERS' `npm test`, as the test below asserts it: the project shares the first one's
   * install, and its script's test half runs as `npm test` runs it (a shell with
   * node_modules/.bin on PATH) beside the one `tsc` of the four. Rejects when its init failed.
   */
  async function testOther(template: string): Promise<OtherRun> {
    const dir = path.join(work, `${template}-project`);
    const out = await scaffolded.get(template)!;
    // The dependencies are the same for every template: share the first project's install.
    symlinkSync(path.join(project, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const own = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: { test: string } };
    const first = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { scripts: { test: string } };
    const [, tests] = /^tsc && (.+)$/.exec(own.scripts.test) ?? [];
    const [typecheck, test] = await Promise.all([typecheckOthers(), tests === undefined ? undefined : npm(['exec', '--no', '-c', tests], dir, 180_000)]);
    return { out, script: own.scripts.test, firstScript: first.scripts.test, tests, typecheck, test };
  }

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'agentport-init-'));
    // --ignore-scripts: dist/ is built already (npm test builds first); prepare would rebuild it.
    const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root, 120_000);
    if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: PackedFile[]; size: number }>;
    packed = info!;
    tarball = path.join(work, info!.filename);

    project = path.join(work, 'writer-project');
    await init(project, 'streaming', tarball);
    // The other scaffolds need only the tarball's name: written while the install runs.
    for (const template of OTHERS) {
      const written = init(path.join(work, `${template}-project`), template, tarball);
      written.catch(() => {}); // asserted by that template's test
      scaffolded.set(template, written);
    }
    install = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], project, 300_000, await localBetterSqlitePrebuild(work));
    // The five projects' `npm test` start now, not when their tests come: the tests before them
    // (the probes of the install, `npm start`, the refusals) then take their wall beside these
    // runs instead of ahead of them. The tests below await and assert each run's outcome.
    ownTest = npm(['test'], project, 180_000);
    ownTest.catch(() => {}); // asserted by its test
    for (const template of OTHERS) {
      const ran = testOther(template);
      ran.catch(() => {}); // asserted by that template's test
      otherTests.set(template, ran);
    }
    await Promise.allSettled(scaffolded.values());
  }, 420_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the tarball holds the CLI, the compiled library, its types, protos and templates, and nothing else', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      'bin/agentport.js',
      'dist/cli/main.js',
      'dist/index.js',
      'dist/agents/sdk/index.js',
      'dist/agents/sdk/index.d.ts',
      'dist/client/index.js',
      'dist/testing/index.js',
      'proto/a2a.proto',
      'templates/init/common/package.json',
      'templates/init/common/gitignore',
      'templates/init/data/data/sales.csv',
      'README.md',
      'package.json',
    ]) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => /^(src|test|bench|scripts|docs\/decisions)\//.test(p) || p.endsWith('.map'))).toEqual([]);
    // 1 MB for the server and the console, plus the console's chart chunk (Vega + Vega-Lite, ≈252 KB
    // gzipped, loaded only on the first chart: docs/console.md), which the package must ship.
    expect(packed.size).toBeLessThan(1_350_000);
  });

  // package.json's `files` leaves out the declarations no export reaches (the size above); this
  // proves that none an export does reach was left out: a consumer's types would silently be any.
  it('every type declaration reachable from the package exports is in the tarball', () => {
    const shipped = new Set(packed.files.map((f) => f.path));
    const exportsMap = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).exports as Record<string, string>;
    const queue = Object.values(exportsMap).map((js) => path.posix.normalize(js).replace(/\.js$/, '.d.ts'));
    const reached = new Set<string>();
    const missing: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      if (!shipped.has(file)) {
        missing.push(file);
        continue;
      }
      for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        queue.push(path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.js$/, '.d.ts'));
      }
    }
    expect(missing).toEqual([]);
    // The walk did follow the imports (the four entries reach the core's, the store's and the config's types).
    expect(reached.size).toBeGreaterThan(100);
  });

  it('npm install of the scaffold succeeds without engine warnings', () => {
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toContain('EBADENGINE');
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
    expect(manifest.name).toBe('writer-project');
    expect(manifest.dependencies.agentport).toBe(`file:${tarball}`);
  });

  it('the installed package resolves agentport, agentport/agent, agentport/client, agentport/testing and the agentport command', async () => {
    // Not spawnSync: the five `npm test` runs started by `beforeAll` report through this event loop.
    const probing = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const a = await import('agentport/agent'); const c = await import('agentport/client'); const t = await import('agentport/testing'); const r = await import('agentport'); console.log(typeof a.defineAgent, typeof c.A2AClient, typeof t.startTestServer, typeof r.startServer);",
      ],
      // Longer than spawnSync's 30 s before: it now shares the cores with the five runs.
      { cwd: project, timeout: 60_000 },
    );
    // --no: never fetch from the registry, where "agentport" is another package.
    const [probe, npx] = await Promise.all([probing, npm(['exec', '--no', '--', 'agentport', 'help', 'init'], project, 60_000)]);
    expect(probe.stdout.trim(), `exit ${probe.status}: ${probe.stderr}`).toBe('function function function function');
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout).toContain('Usage: agentport init');
  }, 90_000);

  it('every declaration file the entry points lead to is in the package (package.json leaves out internal ones only)', () => {
    const installed = path.join(project, 'node_modules', 'agentport');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    const toDeclaration = (js: string) => js.replace(/\.js$/, '.d.ts');
    const pending = Object.values(manifest.exports).map((js) => path.join(installed, toDeclaration(js)));
    const seen = new Set<string>();
    const missing: string[] = [];
    // tsc writes relative references as `from './x.js'` and `import('./x.js')`.
    const reference = /(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      if (!existsSync(file)) {
        missing.push(path.relative(installed, file));
        continue;
      }
      for (const m of readFileSync(file, 'utf8').matchAll(reference)) pending.push(path.resolve(path.dirname(file), toDeclaration(m[1]!)));
    }
    expect(missing).toEqual([]);
    expect(seen.size).toBeGreaterThan(50);
  });

  it('npm start serves the agent: the first start prints a key that works', async () => {
    const start = spawnWatched('npm', ['start', '--', '--port', '0', '--grpc-port', '0', '--log-level', 'warn'], { cwd: project, env: npmEnv() });
    try {
      const http = (await start.waitFor(/HTTP\s+(http:\/\/127\.0\.0\.1:\d+)/, 60_000))[1]!;
      const key = (await start.waitFor(/KEY=(ap_\S+)/, 30_000))[1]!;
      const client = await A2AClient.connect(`${http}/a2a/writer`, { auth: apiKeyAuth(key) });
      const r = await client.sendMessage({ message: textMessage('tests') });
      client.close();
      expect('task' in r && r.task.artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe('Here is a short text about tests, written one word at a time.');
    } finally {
      // SIGTERM to the server; npm exits with its code. The command's shebang puts node options
      // before the script (`node --max-semi-space-size=64 …/bin/agentport serve`, ADR 0081).
      expect(await start.stop(10_000, /node\S* (--\S+ )*\S*bin\/agentport serve/)).toBe(0);
    }
    // The server finished its shutdown (npm exits with its code, 0).
    expect(start.output()).toContain('Stopped.');
  }, 120_000);

  it('refuses a folder that is not empty, and an unknown template', async () => {
    const [again, unknown] = await Promise.all([run(process.execPath, [bin, 'init', project], { timeout: 60_000 }), run(process.execPath, [bin, 'init', path.join(work, 'x'), '--template', 'chat'], { timeout: 60_000 })]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('is not empty');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--template: one of echo, streaming, input-required, data, llm');
  }, 90_000);

  // Each template's own `npm test` (tsc, then its tests) in a project of its own: independent of
  // one another, so the five run side by side, started at the end of `beforeAll` (above), before
  // the dev test below edits the first project. One after another they took the sum of five runs
  // (219 s at load 15-22; side by side 97 s: docs/benchmarks.md, suite18).
  it.concurrent("the scaffold's own npm test passes", async ({ expect }) => {
    const test = await ownTest;
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/# pass 3\b/);
    expect(test.stdout).toMatch(/# fail 0\b/);
  }, 200_000);

  it.concurrent.for(OTHERS)("the %s template's npm test passes (its tsc in one program with the other templates')", { timeout: 200_000 }, async (template, { expect }) => {
    const dir = path.join(work, `${template}-project`);
    const r = await otherTests.get(template)!;
    expect(r.out).toContain(`Created ${template}-project (${template})`);
    expect(r.script).toBe(r.firstScript);
    expect(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')).toBe(readFileSync(path.join(project, 'tsconfig.json'), 'utf8'));
    expect(r.tests, r.script).toBeDefined();
    const errors = r.typecheck.stdout.split('\n').filter((l) => /: error TS\d+/.test(l));
    expect(
      errors.filter((l) => l.startsWith(`${template}-project/`)),
      r.typecheck.stdout,
    ).toEqual([]);
    // A tsc that failed without naming a template's file (its options, a missing type) fails every template.
    expect(r.typecheck.status === 0 || errors.some((l) => OTHERS.some((t) => l.startsWith(`${t}-project/`))), `${r.typecheck.stdout}\n${r.typecheck.stderr}`).toBe(true);
    const test = r.test!;
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/# fail 0\b/);
    expect(test.stdout).not.toMatch(/# pass 0\b/);
  });

  it('npm run dev serves an edit of the TypeScript agent without a restart', async () => {
    const dev = spawnWatched('npm', ['run', 'dev', '--', '--port', '0', '--grpc-port', '0', '--log-level', 'warn'], { cwd: project, env: npmEnv() });
    const agentFile = path.join(project, 'agents/writer.ts');
    const original = readFileSync(agentFile, 'utf8');
    try {
      await dev.waitFor(/Watching /, 60_000);
      const key = (await dev.waitFor(/KEY=(dev_\S+)/))[1]!;
      const url = (await dev.waitFor(/writer\s+A2A\s+(\S+)/))[1]!;
      const ask = async () => {
        const client = await A2AClient.connect(url, { auth: apiKeyAuth(key) });
        const r = await client.sendMessage({ message: textMessage('dev') });
        client.close();
        return 'task' in r ? r.task.artifacts?.[0]?.parts.map((p) => p.text).join('') : undefined;
      };
      expect(await ask()).toBe('Here is a short text about dev, written one word at a time.');
      const from = dev.output().length;
      writeFileSync(agentFile, original.replace('Here is a short text about', 'A note on'));
      await dev.waitFor(/↻ reloaded writer/, 30_000, from);
      expect(await ask()).toBe('A note on dev, written one word at a time.');
    } finally {
      writeFileSync(agentFile, original);
      expect(await dev.stop(10_000, /node\S* (--\S+ )*\S*bin\/agentport dev/)).toBe(0);
    }
    expect(dev.output()).toContain('Stopped.');
  }, 150_000);
});

/**
 * Every way `agentport serve` can fail to start ends the same way: one message on stderr naming
 * the thing, the cause and the fix, a documented exit code (2 configuration, 1 otherwise), no
 * "listening" before it, and nothing left listening after it. Before, each of these cases exited
 * with status 13 (a top-level await that never settled) and printed nothing.
 *
 * The real CLI runs as a child process, its output in files and on a pseudo-terminal.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/private-services.js';
import { RUNNERS, root, canListen, hasMountNamespace, occupyPort, readOnly, runWithOutputInFiles, tempDir, type CliRun, type RunOptions } from './run-built-cli.js';

interface Ports {
  http: number;
  grpc: number;
}

/** `serve` on loopback ports chosen for this run (checked free again after the failure). */
async function serveArgs(cwd: string, extra: string[] = [], ports?: Partial<Ports>): Promise<{ args: string[]; ports: Ports }> {
  const chosen = { http: ports?.http ?? (await freePort()), grpc: ports?.grpc ?? (await freePort()) };
  const args = ['serve', '--port', String(chosen.http), '--grpc-port', String(chosen.grpc), '--data-dir', path.join(cwd, 'data'), ...extra];
  return { args, ports: chosen };
}

/** A config file serving one agent from `source`, written as agent.mjs beside it. */
function agentModuleConfig(cwd: string, source: string | undefined): string[] {
  if (source !== undefined) writeFileSync(path.join(cwd, 'agent.mjs'), source);
  writeFileSync(path.join(cwd, 'agentport.yaml'), 'agents:\n  - id: helper\n    module: ./agent.mjs\n');
  return ['--config', 'agentport.yaml'];
}

function expectNamedFailure(run: CliRun, exitCode: number, lines: string[]): void {
  expect(run.code, `exit code (null: it hung); stderr:\n${run.stderr}`).toBe(exitCode);
  for (const line of lines) expect(run.stderr).toContain(line);
  // Exactly one message, and no "listening" for a server that never served.
  expect(run.stderr.match(/Cannot start:|Invalid configuration/g) ?? []).toHaveLength(1);
  expect(`${run.stdout}\n${run.stderr}`).not.toMatch(/listening/i);
  expect(run.stderr).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
}

async function expectNothingListening(ports: Ports): Promise<void> {
  expect(await canListen(ports.http), `HTTP port ${ports.http} free again`).toBe(true);
  expect(await canListen(ports.grpc), `gRPC port ${ports.grpc} free again`).toBe(true);
}

/**
 * The cases run side by side (issue 26, suite time; at most vitest's maxConcurrency, 5, at once):
 * each is a child process of its own, with its own directory, data directory and ports, so none
 * sees another's, and together they use both cores where one after another they used one. A port
 * a case holds is released when that case ends (the test context's onTestFinished, which names
 * that case; the module-level one cannot tell concurrent cases apart).
 */
describe.concurrent('agentport serve: start-up failures are named (built CLI, child process)', () => {
  describe.each(RUNNERS)('with output to %s', (_how, run) => {
    const start = (args: string[], opts: RunOptions) => run(args, opts);

    it('an agent module that is missing: exit 2, names the key and the path', async () => {
      const cwd = tempDir();
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, undefined));
      expectNamedFailure(await start(args, { cwd }), 2, [`agents[0].module: file not found: ${path.join(cwd, 'agent.mjs')}`, 'Fix the file']);
      await expectNothingListening(ports);
    });

    it('an agent module that imports a package that is not installed: exit 1, names the package', async () => {
      const cwd = tempDir();
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, "import 'agentport-no-such-package';\nexport default {};\n"));
      expectNamedFailure(await start(args, { cwd }), 1, [
        `Cannot start: agent 'helper': module ${path.join(cwd, 'agent.mjs')} imports 'agentport-no-such-package', which cannot be found`,
        'Fix: install it where the module can resolve it (npm install agentport-no-such-package',
      ]);
      await expectNothingListening(ports);
    });

    it('an agent module that throws at import: exit 1, names the module, the error and where it was thrown', async () => {
      const cwd = tempDir();
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, "\nthrow new Error('no API token in the environment');\n"));
      const file = path.join(cwd, 'agent.mjs');
      expectNamedFailure(await start(args, { cwd }), 1, [`Cannot start: agent 'helper': module ${file} threw while it was loaded: no API token in the environment (at ${file}:2:7).`, "Fix: correct the module's code"]);
      await expectNothingListening(ports);
    });

    it('an agent module with a syntax error: exit 2, names the module and how to find the line', async () => {
      const cwd = tempDir();
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, 'export default { card: { name: "x" }, execute( };\n'));
      const file = path.join(cwd, 'agent.mjs');
      expectNamedFailure(await start(args, { cwd }), 2, [`Cannot start: agent 'helper': module ${file} has a syntax error (`, `node --check ${file}`]);
      await expectNothingListening(ports);
    });

    it('an agent module that exports no agent: exit 2, says what to export', async () => {
      const cwd = tempDir();
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, 'export const answer = 42;\n'));
      expectNamedFailure(await start(args, { cwd }), 2, [
        `Cannot start: agent 'helper': module ${path.join(cwd, 'agent.mjs')} must export an AgentDefinition`,
        "Fix: export defineAgent({ card: { name, description, skills }, execute }) as default or as 'agent'",
      ]);
      await expectNothingListening(ports);
    });

    it('an agent whose card has no name: exit 2, names the field and where to set it', async () => {
      const cwd = tempDir();
      const source = "export default { card: { description: 'Helps.', skills: [] }, async execute(ctx) { ctx.complete(); } };\n";
      const { args, ports } = await serveArgs(cwd, agentModuleConfig(cwd, source));
      expectNamedFailure(await start(args, { cwd }), 2, [
        `Cannot start: agent 'helper': module ${path.join(cwd, 'agent.mjs')} has an invalid card: name is required`,
        "Fix: set card.name in the agent's definition, or under agents[0].card in the config.",
      ]);
      await expectNothingListening(ports);
    });

    it('the HTTP port in use: exit 1, names the port and the flag', async ({ onTestFinished }) => {
      const cwd = tempDir();
      const taken = await occupyPort();
      onTestFinished(taken.release);
      const { args, ports } = await serveArgs(cwd, [], { http: taken.port });
      expectNamedFailure(await start(args, { cwd }), 1, [
        `Cannot start: the HTTP port ${taken.port} on 127.0.0.1 is already in use by another process.`,
        'Fix: stop that process, or choose another port with --port (server.port); 0 picks any free port.',
      ]);
      // The gRPC listener had bound before HTTP failed; it is closed again.
      expect(await canListen(ports.grpc)).toBe(true);
    });

    it("the gRPC port in use: exit 1, names the port and the flag, without grpc-js's own line", async ({ onTestFinished }) => {
      const cwd = tempDir();
      const taken = await occupyPort();
      onTestFinished(taken.release);
      const { args, ports } = await serveArgs(cwd, [], { grpc: taken.port });
      const result = await start(args, { cwd });
      expectNamedFailure(result, 1, [
        `Cannot start: the gRPC port ${taken.port} on 127.0.0.1 is already in use by another process.`,
        'Fix: stop that process, or choose another port with --grpc-port (server.grpc.port); 0 picks any free port.',
      ]);
      expect(result.stderr).not.toContain('No address added');
      expect(await canListen(ports.http)).toBe(true);
    });

    it('--auth none on a non-loopback host: exit 2 before anything opens, names the host and the ways out', async () => {
      const cwd = tempDir();
      const { args } = await serveArgs(cwd, ['--host', '0.0.0.0', '--auth', 'none']);
      expectNamedFailure(await start(args, { cwd }), 2, [
        'Cannot start: auth.mode none (--auth none) turns authentication off, yet the server would listen on 0.0.0.0, which is not loopback',
        'Fix: listen on 127.0.0.1 (--host), turn authentication on (drop --auth none), or pass --allow-insecure',
      ]);
    });

    it('a SQLite database with corrupted interior pages: exit 1, names the file and how to recover', async () => {
      const cwd = tempDir();
      const file = path.join(cwd, 'data', 'agentport.db');
      const migrated = await runWithOutputInFiles(['db', 'migrate', '--storage', `sqlite:${file}`], { cwd });
      expect(migrated.code, migrated.stderr).toBe(0);
      corruptPagesAfterTheFirst(file);
      const { args, ports } = await serveArgs(cwd);
      expectNamedFailure(await start(args, { cwd }), 1, [
        `Cannot start: the database ${file} is damaged and cannot be read (SQLite: database disk image is malformed).`,
        'Fix: restore it from a backup, or move it aside',
      ]);
      await expectNothingListening(ports);
    });

    it.skipIf(!hasMountNamespace)('a read-only data directory: exit 1, names the path and the cause', async () => {
      const cwd = tempDir();
      const dataDir = path.join(cwd, 'data');
      await mkdir(dataDir);
      const { args, ports } = await serveArgs(cwd);
      expectNamedFailure(await start(args, { cwd, prefix: readOnly(dataDir) }), 1, [
        `Cannot start: the data directory ${dataDir} is on a read-only file system (EROFS`,
        'Fix: choose a --data-dir (server.dataDir) on a writable file system.',
      ]);
      await expectNothingListening(ports);
    });

    it.skipIf(!hasMountNamespace)('a data directory to be created under a read-only one: exit 1, names the directory that refused', async () => {
      const cwd = tempDir();
      const parent = path.join(cwd, 'data');
      await mkdir(parent);
      const { args, ports } = await serveArgs(cwd);
      args[args.indexOf('--data-dir') + 1] = path.join(parent, 'agentport');
      expectNamedFailure(await start(args, { cwd, prefix: readOnly(parent) }), 1, [`Cannot start: the data directory ${path.join(parent, 'agentport')} is on a read-only file system (${parent}: EROFS`]);
      await expectNothingListening(ports);
    });
  });
});

describe('agentport serve --help', () => {
  it('lists the exit codes of a failed start', async () => {
    const result = await runWithOutputInFiles(['serve', '--help'], { cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Exit codes:');
    expect(result.stdout).toMatch(/^ {2}1 {4}could not start or keep running: a port in use/m);
    expect(result.stdout).toMatch(/^ {2}2 {4}the configuration is refused/m);
  });
});

/** Overwrites every page but the first (the header and schema) with garbage, as a bad disk would. */
function corruptPagesAfterTheFirst(file: string): void {
  const bytes = readFileSync(file);
  const pageSize = bytes.readUInt16BE(16);
  expect(bytes.length / pageSize).toBeGreaterThan(2);
  bytes.fill(0xa5, pageSize);
  writeFileSync(file, bytes);
}

describe('a command that can never finish', () => {
  it('prints an internal error and exits 1 instead of a silent status 13', () => {
    // The shape of the original defect: awaiting a promise nothing on the event loop can settle.
    const program = `import { exitIfNeverSettled } from ${JSON.stringify(path.join(root, 'dist/cli/unsettled-exit.js'))};\nawait exitIfNeverSettled(new Promise(() => {}));\n`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('agentport: internal error: the command stopped waiting on a step that can never finish');
  });

  it('leaves a command that finishes alone', () => {
    const program = `import { exitIfNeverSettled } from ${JSON.stringify(path.join(root, 'dist/cli/unsettled-exit.js'))};\nawait exitIfNeverSettled(new Promise((r) => setTimeout(r, 50)));\n`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { RunningServer, StartServer } from '../../src/cli/commands/serve.js';
import { runCli } from '../../src/cli/program.js';
import type { Config } from '../../src/config/index.js';
import { fakeIO } from './fake-io.js';

const argv = (...args: string[]) => ['node', 'agentport', ...args];
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agentport-cli-'));

function fakeServer(): { start: StartServer; started: Config[]; close: ReturnType<typeof vi.fn> } {
  const started: Config[] = [];
  const close = vi.fn(async () => {});
  const start: StartServer = async (config) => {
    started.push(config);
    const server: RunningServer = {
      urls: { http: 'http://127.0.0.1:41000', grpc: '127.0.0.1:41001' },
      agents: config.agents.map((a) => ({ id: a.id, url: `http://127.0.0.1:41000/a2a/${a.id}` })),
      close,
    };
    return server;
  };
  return { start, started, close };
}

describe('agentport (in-process)', () => {
  it('prints help with examples and exits 0', async () => {
    const io = fakeIO(tempDir());
    await runCli(argv('--help'), io);
    expect(io.exits).toEqual([0]);
    expect(io.out).toContain('Usage: agentport');
    expect(io.out).toContain('serve');
    expect(io.out).toContain('Examples:');
    expect(io.out).toContain('agentport serve --config agentport.yaml');
  });

  it('prints the package version', async () => {
    const io = fakeIO(tempDir());
    await runCli(argv('--version'), io);
    expect(io.exits).toEqual([0]);
    expect(io.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('documents every serve flag', async () => {
    const io = fakeIO(tempDir());
    await runCli(argv('serve', '--help'), io);
    for (const flag of ['--config', '--host', '--port', '--grpc-port', '--data-dir', '--log-level']) expect(io.out).toContain(flag);
  });

  it('exits 2 on an unknown option', async () => {
    const io = fakeIO(tempDir());
    await runCli(argv('serve', '--prot', '1'), io);
    expect(io.exits).toEqual([2]);
    expect(io.err).toContain("unknown option '--prot'");
  });

  it('exits 2 on an invalid config file, naming the key, without starting the server', async () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, 'bad.yaml'), 'agents:\n  - id: Not A Slug\n    builtin: echo\n');
    const io = fakeIO(cwd);
    const server = fakeServer();
    await runCli(argv('serve', '--config', 'bad.yaml'), io, { startServer: server.start });
    expect(io.exits).toEqual([2]);
    expect(io.err).toContain('agents[0].id: must match');
    expect(io.err).toContain('Fix the file or run with --help');
    expect(server.started).toEqual([]);
  });

  it('exits 2 on an invalid flag value, naming the key and the flag', async () => {
    const io = fakeIO(tempDir());
    await runCli(argv('serve', '--port', '99999'), io, { startServer: fakeServer().start });
    expect(io.exits).toEqual([2]);
    expect(io.err).toContain('server.port: must be an integer from 0 to 65535 (got "99999") (from --port)');
  });

  it('starts the server with flags applied and prints where to reach it', async () => {
    const cwd = tempDir();
    const io = fakeIO(cwd);
    const server = fakeServer();
    await runCli(argv('serve', '--port', '0', '--grpc-port', '0', '--data-dir', 'state', '--log-level', 'warn'), io, {
      startServer: server.start,
    });
    expect(io.exits).toEqual([]);
    expect(server.started).toHaveLength(1);
    expect(server.started[0]?.server).toMatchObject({ port: 0, logLevel: 'warn', dataDir: path.join(cwd, 'state'), grpc: { port: 0 } });
    expect(io.err).toContain('http://127.0.0.1:41000');
    expect(io.err).toContain('127.0.0.1:41001');
    // Agent ids are padded to the longest (the default demo agents: echo and table-expert).
    expect(io.err).toMatch(/echo +http:\/\/127\.0\.0\.1:41000\/a2a\/echo\/\.well-known\/agent-card\.json/);
    expect(io.err).toMatch(/table-expert +http:\/\/127\.0\.0\.1:41000\/a2a\/table-expert\/\.well-known\/agent-card\.json/);
    expect(io.err).toContain('http://127.0.0.1:41000/.well-known/agent-card.json (echo)');
    // The MCP URL, and where the connect steps are (the page at /, agentport connect).
    expect(io.err).toMatch(/^ {2}MCP +http:\/\/127\.0\.0\.1:41000\/mcp$/m);
    expect(io.err).toContain('open http://127.0.0.1:41000/ in a browser, or: agentport connect claude-code --url http://127.0.0.1:41000');
    expect(io.err).toContain(path.join(cwd, 'state'));
  });

  it('closes gracefully on the first signal and exits 0', async () => {
    const io = fakeIO(tempDir());
    const server = fakeServer();
    await runCli(argv('serve'), io, { startServer: server.start });
    io.signal('SIGTERM');
    await vi.waitFor(() => expect(io.exits).toEqual([0]));
    expect(server.close).toHaveBeenCalledTimes(1);
  });

  it('exits at once on a second signal while closing', async () => {
    const io = fakeIO(tempDir());
    const server = fakeServer();
    server.close.mockImplementation(() => new Promise<void>(() => {}));
    await runCli(argv('serve'), io, { startServer: server.start });
    io.signal('SIGINT');
    io.signal('SIGINT');
    expect(io.exits).toEqual([130]);
    expect(server.close).toHaveBeenCalledTimes(1);
  });

  it('explains a port already in use and exits 1', async () => {
    const io = fakeIO(tempDir());
    const start: StartServer = async () => {
      throw Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE' });
    };
    await runCli(argv('serve'), io, { startServer: start });
    expect(io.exits).toEqual([1]);
    expect(io.err).toContain('already in use');
    expect(io.err).toContain('--port');
  });
});

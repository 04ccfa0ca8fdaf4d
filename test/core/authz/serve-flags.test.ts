/**
 * `agentport serve --auth none|required [--allow-insecure]` reach auth.mode, and the first start's
 * admin key is printed once, on stdout, with how to use it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningServer, StartServer } from '../../../src/cli/commands/serve.js';
import { runCli } from '../../../src/cli/program.js';
import type { Config } from '../../../src/config/index.js';
import { fakeIO } from '../../cli/fake-io.js';

const argv = (...args: string[]) => ['node', 'agentport', ...args];
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agentport-authz-cli-'));

function fakeServer(firstAdminKey?: string, firstAdminUser?: RunningServer['firstAdminUser']): { start: StartServer; started: Config[] } {
  const started: Config[] = [];
  const start: StartServer = async (config) => {
    started.push(config);
    const server: RunningServer = {
      urls: { http: 'http://127.0.0.1:41000' },
      agents: [],
      close: async () => {},
      ...(firstAdminKey ? { firstAdminKey } : {}),
      ...(firstAdminUser ? { firstAdminUser } : {}),
    };
    return server;
  };
  return { start, started };
}

describe('serve --auth', () => {
  it('--auth none sets auth.mode none; --allow-insecure sets allowInsecureNone', async () => {
    const server = fakeServer();
    const io = fakeIO(tempDir());
    await runCli(argv('serve', '--auth', 'none', '--allow-insecure'), io, { startServer: server.start });
    expect(io.exits).toEqual([]);
    expect(server.started[0]!.auth).toMatchObject({ mode: 'none', allowInsecureNone: true });
  });

  it('without the flag the mode is required', async () => {
    const server = fakeServer();
    await runCli(argv('serve'), fakeIO(tempDir()), { startServer: server.start });
    expect(server.started[0]!.auth.mode).toBe('required');
    expect(server.started[0]!.auth.allowInsecureNone).toBeUndefined();
  });

  it('an unknown mode exits 2 before starting anything', async () => {
    const server = fakeServer();
    const io = fakeIO(tempDir());
    await runCli(argv('serve', '--auth', 'off'), io, { startServer: server.start });
    expect(io.exits).toEqual([2]);
    expect(io.err).toContain('--auth: must be "required" or "none"');
    expect(server.started).toHaveLength(0);
  });

  it('prints the first start’s admin key once on stdout, with a curl line using it', async () => {
    const key = `ap_0123456789abcdef_${'A'.repeat(43)}`;
    const io = fakeIO(tempDir());
    await runCli(argv('serve'), io, { startServer: fakeServer(key).start });
    expect(io.out.split(key)).toHaveLength(2);
    expect(io.out).toMatch(new RegExp(`^KEY=${key}$`, 'm'));
    expect(io.out).toContain('curl -H "X-API-Key: $KEY" http://127.0.0.1:41000/api/v1/keys');
    expect(io.err).not.toContain(key);
    const again = fakeIO(tempDir());
    await runCli(argv('serve'), again, { startServer: fakeServer().start });
    expect(again.out).not.toContain('KEY=');
    // What to do when the key printed once is lost: on the first start and on every later one.
    expect(io.out).toContain('agentport keys create --subject admin --scope admin');
    expect(again.err).toContain('agentport keys create --subject admin --scope admin');
  });

  it('prints the first start’s sign-in user once on stdout, with where to sign in, never on stderr', async () => {
    const user = { username: 'admin', password: `pw-${'x'.repeat(21)}`, loginUrl: 'http://127.0.0.1:41000/oauth/authorize' };
    const io = fakeIO(tempDir());
    await runCli(argv('serve'), io, { startServer: fakeServer(undefined, user).start });
    expect(io.out.split(user.password)).toHaveLength(2);
    expect(io.out).toContain(`password: ${user.password}`);
    expect(io.out).toContain(user.loginUrl);
    expect(io.err).not.toContain(user.password);
  });
});

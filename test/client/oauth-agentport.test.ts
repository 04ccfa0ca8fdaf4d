/**
 * OAuth client credentials against Agentport's own authorization server (`/oauth/token`): a
 * machine client created with `agentport clients create --machine` reaches an agent through the
 * client library on every binding, and through `agentport send --token-url/--client-id`. The
 * token is fetched once and reused.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, ClientCredentialsAuth, OAuthTokenError, textMessage, type Binding } from '../../src/client/index.js';
import { runCli } from '../../src/cli/program.js';
import { fakeIO } from '../cli/fake-io.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let clientId: string;
let secret: string;

beforeAll(async () => {
  s = await startTestServer({ auth: { mode: 'required' }, agents: [{ id: 'echo', builtin: 'echo' }] });
  const io = fakeIO(s.dataDir);
  await runCli(['node', 'agentport', 'clients', 'create', '--name', 'client-lib', '--machine', '--scope', 'a2a:discover', '--scope', 'a2a:publish', '--storage', `sqlite:${path.join(s.dataDir, 'agentport.db')}`], io);
  clientId = /^client_id {6}(\S+)$/m.exec(io.out)![1]!;
  secret = /^client_secret {2}(\S+)$/m.exec(io.out)![1]!;
});
afterAll(() => s?.stop());

const auth = (o: { secret?: string } = {}) => new ClientCredentialsAuth({ tokenUrl: `${s.http}/oauth/token`, clientId, clientSecret: o.secret ?? secret, scope: 'a2a:discover a2a:publish' });

describe('client credentials from Agentport /oauth/token', () => {
  it.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('a machine client reaches the agent on %s with one token', async (binding) => {
    const a = auth();
    const c = await A2AClient.connect(`${s.http}/a2a/echo`, { bindings: [binding], auth: a });
    try {
      for (const text of ['one', 'two']) {
        const r = await c.sendMessage({ message: textMessage(text) });
        expect('task' in r && r.task.artifacts?.[0]?.parts[0]?.text).toBe(text);
      }
      expect(a.tokensIssued).toBe(1);
    } finally {
      c.close();
    }
  });

  it('a wrong secret is an OAuthTokenError from the token endpoint', async () => {
    const c = await A2AClient.connect(`${s.http}/a2a/echo`, { auth: auth({ secret: 'not-the-secret' }) });
    const err = await c.sendMessage({ message: textMessage('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthTokenError);
    expect((err as OAuthTokenError).error).toBe('invalid_client');
  });

  it('agentport send --token-url --client-id with the secret from the environment', async () => {
    const io = fakeIO(s.dataDir, { AGENTPORT_CLIENT_SECRET: secret });
    await runCli(['node', 'agentport', 'send', `${s.http}/a2a/echo`, 'via oauth', '--token-url', `${s.http}/oauth/token`, '--client-id', clientId, '--scope', 'a2a:discover a2a:publish', '--json'], io);
    expect(io.exits).toEqual([]);
    expect(JSON.parse(io.out).task.artifacts[0].parts[0].text).toBe('via oauth');
  });
});

/**
 * `agentport/testing`: a real server for an agent project's own tests, started from its
 * agentport.yaml on free loopback ports with a throw-away data folder, exactly as `agentport
 * serve` runs it. With authentication on (the default) it carries a key the test can use.
 *
 *   const server = await startTestServer();
 *   const client = await A2AClient.connect(server.agentUrl('echo'), { auth: apiKeyAuth(server.apiKey!) });
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../config/index.js';
import { startServer, type RunningServer } from '../server/start.js';
import { SCOPES } from '../core/authz/scopes.js';

export interface TestServerOptions {
  /** the config file; default ./agentport.yaml (or $AGENTPORT_CONFIG), resolved from `cwd` */
  config?: string;
  /** default process.cwd() */
  cwd?: string;
  /** `none` turns authentication off; default `required`, with `apiKey` to authenticate */
  auth?: 'required' | 'none';
  /** default `error`: only failures reach the test's output */
  logLevel?: string;
}

export interface TestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** an agent's A2A base URL (its card is beneath it) */
  agentUrl(agentId: string): string;
  /** scopes a2a:discover, a2a:publish and mcp:tools; absent with auth `none` */
  apiKey?: string;
  config: Config;
  server: RunningServer;
  /** stops the server and removes its data folder */
  close(): Promise<void>;
}

export async function startTestServer(o: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-test-'));
  let config = loadConfig({
    ...(o.config === undefined ? {} : { file: o.config }),
    cwd: o.cwd ?? process.cwd(),
    overrides: { host: '127.0.0.1', port: 0, grpcPort: 0, dataDir, logLevel: o.logLevel ?? 'error' },
  });
  const apiKey = o.auth === 'none' ? undefined : `test_${randomBytes(24).toString('base64url')}`;
  config = {
    ...config,
    auth: {
      ...config.auth,
      mode: o.auth ?? 'required',
      apiKeys: [...config.auth.apiKeys, ...(apiKey ? [{ key: apiKey, subject: 'test', scopes: [SCOPES.discover, SCOPES.publish, SCOPES.mcpTools] }] : [])],
    },
  };
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = server.urls.http.replace(/\/+$/, '');
  return {
    url,
    agentUrl: (agentId) => `${url}/a2a/${agentId}`,
    ...(apiKey ? { apiKey } : {}),
    config: server.agentSlots.config,
    server,
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

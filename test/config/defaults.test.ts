import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { tempDir, writeFile } from './helpers.js';
import { availableParallelism } from 'node:os';

/** The commit thread's default (ADR 0062): on where a second core can run it. */
const onByDefault = availableParallelism() > 1;

describe('loadConfig without a file', () => {
  it('applies every default when no file exists and none is named', () => {
    const cwd = tempDir();
    const config = loadConfig({ cwd, env: {} });

    expect(config.file).toBeUndefined();
    expect(config.baseDir).toBe(cwd);
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8080,
      publicUrl: 'http://127.0.0.1:8080',
      publicUrlDerived: true,
      grpc: { enabled: true, host: '127.0.0.1', port: 50051, publicUrl: '127.0.0.1:50051', publicUrlDerived: true },
      dataDir: path.join(cwd, '.agentport'),
      logLevel: 'info',
    });
    expect(config.limits).toEqual({
      bodyBytes: 4 * 1024 * 1024,
      headerBytes: 16 * 1024,
      requestTimeoutMs: 60_000,
      blockingSendTimeoutMs: 60_000,
      maxHistoryLength: 1000,
      sseKeepAliveMs: 15_000,
      maxConcurrentStreamsPerTask: 32,
      pushTimeoutMs: 10_000,
      pushMaxAttempts: 8,
      bodyBytesInFlight: 64 * 1024 * 1024,
      bodyReadTimeoutMs: 30_000,
      deduplicateMessageIds: true,
    });
    expect(config.storage).toEqual({ driver: 'sqlite', file: path.join(cwd, '.agentport', 'agentport.db'), synchronous: 'normal', commitThread: onByDefault });
    expect(config.bus).toEqual({ driver: 'in-process' });
    expect(config.agents).toEqual([
      { id: 'echo', builtin: 'echo', card: {}, extendedCard: true, skills: {}, requiredExtensions: [], options: {} },
      { id: 'table-expert', builtin: 'table-expert', card: {}, extendedCard: true, skills: {}, requiredExtensions: [], options: {} },
    ]);
    expect(config.primaryAgent).toBe('echo');
    expect(config.auth).toEqual({
      mode: 'required',
      oauth: {
        enabled: true,
        accessTokenTtlSeconds: 3600,
        refreshTokenTtlSeconds: 30 * 86_400,
        defaultScopes: ['a2a:discover', 'a2a:publish', 'mcp:tools'],
        registration: true,
        allowedRedirectUris: [
          'https://chatgpt.com/connector_platform_oauth_redirect',
          'https://chatgpt.com/connector/oauth/*',
          'https://claude.ai/api/mcp/auth_callback',
          'https://claude.com/api/mcp/auth_callback',
          'https://chatgpt.com/aip/mcp/oauth/callback',
          'https://chat.openai.com/aip/mcp/oauth/callback',
          'https://claude.ai/api/mcp/oauth/callback',
        ],
        clientIdMetadataDocuments: { enabled: true, allowLoopbackHosts: false },
        localUsers: true,
        trustedProxies: [],
        tokenLogin: {},
        // issue 27 (ADR 0039): no issuer's tokens are accepted as subject tokens unless configured
        tokenExchange: { subjectIssuers: [] },
      },
      apiKeys: [],
      extendedCard: true,
      anonymousExtendedCard: false,
    });
    expect(config.push).toEqual({ allowHttp: false, allowlist: [], signJwt: false });
    expect(config.cards).toEqual({ sign: true, maxAgeSeconds: 300, v03Fields: true });
  });

  it('treats an empty file like no file', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', '# nothing yet\n');
    const config = loadConfig({ file, env: {} });
    expect(config.file).toBe(file);
    expect(config.agents.map((a) => a.id)).toEqual(['echo', 'table-expert']);
  });
});

describe('config file discovery', () => {
  it('uses ./agentport.yaml when it exists and no file is named', () => {
    const cwd = tempDir();
    const file = writeFile(cwd, 'agentport.yaml', 'server:\n  port: 9001\n');
    const config = loadConfig({ cwd, env: {} });
    expect(config.file).toBe(file);
    expect(config.server.port).toBe(9001);
  });

  it('prefers AGENTPORT_CONFIG over ./agentport.yaml', () => {
    const cwd = tempDir();
    writeFile(cwd, 'agentport.yaml', 'server:\n  port: 9001\n');
    writeFile(cwd, 'conf/other.yaml', 'server:\n  port: 9002\n');
    const config = loadConfig({ cwd, env: { AGENTPORT_CONFIG: 'conf/other.yaml' } });
    expect(config.file).toBe(path.join(cwd, 'conf/other.yaml'));
    expect(config.server.port).toBe(9002);
  });

  it('prefers the file option over AGENTPORT_CONFIG', () => {
    const cwd = tempDir();
    writeFile(cwd, 'a.yaml', 'server:\n  port: 9003\n');
    writeFile(cwd, 'b.yaml', 'server:\n  port: 9004\n');
    expect(loadConfig({ cwd, file: 'a.yaml', env: { AGENTPORT_CONFIG: 'b.yaml' } }).server.port).toBe(9003);
  });
});

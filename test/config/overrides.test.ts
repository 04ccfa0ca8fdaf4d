import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir, writeFile } from './helpers.js';

describe('CLI overrides', () => {
  const fileWith = (text: string) => {
    const dir = tempDir();
    return { dir, file: writeFile(dir, 'conf/agentport.yaml', text) };
  };

  it('win over the file', () => {
    const { file } = fileWith('server:\n  host: 127.0.0.1\n  port: 9000\n  grpc:\n    port: 9001\n  logLevel: warn\n');
    const config = loadConfig({ file, env: {}, overrides: { host: '::1', port: 9100, grpcPort: '0', logLevel: 'debug' } });
    expect(config.server).toMatchObject({ host: '::1', port: 9100, logLevel: 'debug', grpc: { port: 0, host: '::1' } });
  });

  it('feed the derived public URLs', () => {
    const config = loadConfig({ cwd: tempDir(), env: {}, overrides: { port: '9200', grpcPort: 9201 } });
    expect(config.server.publicUrl).toBe('http://127.0.0.1:9200');
    expect(config.server.grpc.publicUrl).toBe('127.0.0.1:9201');
  });

  it('do not replace a publicUrl written in the file', () => {
    const { file } = fileWith('server:\n  publicUrl: https://agents.example.com\n');
    expect(loadConfig({ file, env: {}, overrides: { port: 1234 } }).server.publicUrl).toBe('https://agents.example.com');
  });

  it('resolve --data-dir against the current directory, not the file', () => {
    const { dir, file } = fileWith('server:\n  dataDir: from-file\n');
    const cwd = tempDir();
    const config = loadConfig({ file, cwd, env: {}, overrides: { dataDir: 'from-flag' } });
    expect(config.server.dataDir).toBe(path.join(cwd, 'from-flag'));
    expect(config.storage).toMatchObject({ file: path.join(cwd, 'from-flag', 'agentport.db') });
    expect(dir).not.toBe(cwd);
  });

  it('are validated like file values and the problem names the flag', () => {
    const error = configErrorOf(() => loadConfig({ cwd: tempDir(), env: {}, overrides: { port: 'abc', logLevel: 'loud' } }));
    expect(problemLines(error)).toEqual([
      'server.port: must be an integer from 0 to 65535 (got "abc") (from --port)',
      'server.logLevel: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent" (got "loud") (from --log-level)',
    ]);
  });
});

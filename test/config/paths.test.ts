import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig, withListeningPorts } from '../../src/config/index.js';
import { configErrorOf, tempDir, writeFile } from './helpers.js';
import { availableParallelism } from 'node:os';

/** The commit thread's default (ADR 0062): on where a second core can run it. */
const onByDefault = availableParallelism() > 1;

describe('relative paths', () => {
  it('resolve against the config file directory', () => {
    const root = tempDir();
    writeFile(root, 'conf/agents/mine.js', 'export default {};\n');
    const file = writeFile(
      root,
      'conf/agentport.yaml',
      ['server:', '  dataDir: ./state', 'storage:', '  driver: sqlite', '  file: ../db/main.db', 'agents:', '  - id: mine', '    module: ./agents/mine.js', ''].join('\n'),
    );
    const config = loadConfig({ file, cwd: tempDir(), env: {} });
    expect(config.baseDir).toBe(path.join(root, 'conf'));
    expect(config.server.dataDir).toBe(path.join(root, 'conf/state'));
    expect(config.storage).toEqual({ driver: 'sqlite', file: path.join(root, 'db/main.db'), synchronous: 'normal', commitThread: onByDefault });
    expect(config.agents[0]).toMatchObject({ id: 'mine', module: path.join(root, 'conf/agents/mine.js') });
    expect(config.agents[0]?.builtin).toBeUndefined();
  });

  it('resolve against the current directory when there is no file', () => {
    const cwd = tempDir();
    writeFile(cwd, 'a.js', 'export const agent = {};\n');
    const config = parseConfig({ server: { dataDir: 'data' }, agents: [{ id: 'a', module: 'a.js' }] }, { cwd, env: {} });
    expect(config.server.dataDir).toBe(path.join(cwd, 'data'));
    expect(config.agents[0]?.module).toBe(path.join(cwd, 'a.js'));
  });

  it('keep absolute paths as they are', () => {
    const elsewhere = tempDir();
    const config = parseConfig({ server: { dataDir: elsewhere } }, { cwd: tempDir(), env: {} });
    expect(config.server.dataDir).toBe(elsewhere);
  });

  it('report an agent module that does not exist with its resolved path', () => {
    const cwd = tempDir();
    const error = configErrorOf(() => parseConfig({ agents: [{ id: 'a', module: './nope.js' }] }, { cwd, env: {} }));
    expect(error.problems).toEqual([{ path: 'agents[0].module', message: `file not found: ${path.join(cwd, 'nope.js')} (relative paths start at ${cwd})` }]);
  });
});

describe('withListeningPorts', () => {
  it('moves derived URLs to the bound ports and leaves configured ones alone', () => {
    const config = parseConfig({ server: { port: 0, grpc: { port: 0, publicUrl: 'grpc.example.com:443' } } }, { cwd: tempDir(), env: {} });
    const bound = withListeningPorts(config, { http: 41234, grpc: 41235 });
    expect(bound.server.port).toBe(41234);
    expect(bound.server.publicUrl).toBe('http://127.0.0.1:41234');
    expect(bound.server.grpc.port).toBe(41235);
    expect(bound.server.grpc.publicUrl).toBe('grpc.example.com:443');
    expect(config.server.port).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir, writeFile } from './helpers.js';

const parse = (input: unknown, env: Record<string, string>) => parseConfig(input, { cwd: tempDir(), env });

describe('${VAR} interpolation', () => {
  it('substitutes variables inside string values, in a file', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', ['server:', '  host: ${BIND}', '  publicUrl: https://${DOMAIN}/base', 'storage: ${DATABASE_URL}', ''].join('\n'));
    const config = loadConfig({ file, env: { BIND: '0.0.0.0', DOMAIN: 'agents.example.com', DATABASE_URL: 'postgres://db/agentport' } });
    expect(config.server.host).toBe('0.0.0.0');
    expect(config.server.publicUrl).toBe('https://agents.example.com/base');
    expect(config.storage).toEqual({ driver: 'postgres', url: 'postgres://db/agentport', schema: 'public', maxConnections: 10, migrate: true });
  });

  it('uses the :- default when the variable is unset or empty', () => {
    expect(parse({ server: { host: '${BIND:-127.0.0.2}' } }, {}).server.host).toBe('127.0.0.2');
    expect(parse({ server: { host: '${BIND:-127.0.0.2}' } }, { BIND: '' }).server.host).toBe('127.0.0.2');
    expect(parse({ server: { host: '${BIND:-127.0.0.2}' } }, { BIND: '10.0.0.1' }).server.host).toBe('10.0.0.1');
  });

  it('turns substituted numbers and booleans into their types', () => {
    const config = parse({ server: { port: '${PORT:-8081}', grpc: { enabled: '${GRPC}' } } }, { GRPC: 'false' });
    expect(config.server.port).toBe(8081);
    expect(config.server.grpc.enabled).toBe(false);
  });

  it('substitutes inside lists and nested mappings', () => {
    const config = parse({ auth: { apiKeys: [{ key: '${CI_KEY}', subject: 'ci', scopes: ['${SCOPE:-a2a:send}'] }] } }, { CI_KEY: 'x'.repeat(32) });
    expect(config.auth.apiKeys).toEqual([{ key: 'x'.repeat(32), subject: 'ci', scopes: ['a2a:send'] }]);
  });

  it('names the key and the variable when a variable without default is missing', () => {
    const error = configErrorOf(() => parse({ storage: '${DATABASE_URL}', server: { port: '${PORT}' } }, {}));
    expect(problemLines(error)).toEqual([
      'storage: environment variable DATABASE_URL is not set (referenced as ${DATABASE_URL}; set it, or write ${DATABASE_URL:-default})',
      'server.port: environment variable PORT is not set (referenced as ${PORT}; set it, or write ${PORT:-default})',
    ]);
  });

  it('keeps other problems next to a missing variable, without follow-up noise for that key', () => {
    const error = configErrorOf(() => parse({ server: { port: '${PORT}', host: 'http://x' } }, {}));
    expect(error.problems.map((p) => p.path)).toEqual(['server.port', 'server.host']);
  });

  it('writes a literal ${ for $${', () => {
    expect(parse({ agents: [{ id: 'a', builtin: 'echo', card: { description: 'costs $${PRICE}' } }] }, {}).agents[0]?.card.description).toBe('costs ${PRICE}');
  });

  it('rejects a malformed reference', () => {
    const error = configErrorOf(() => parse({ server: { host: '${not valid}' } }, {}));
    expect(error.problems[0]?.path).toBe('server.host');
    expect(error.problems[0]?.message).toMatch(/^invalid reference/);
  });

  it('does not interpolate keys', () => {
    const error = configErrorOf(() => parse({ server: { '${KEY}': 1 } }, { KEY: 'port' }));
    expect(error.problems[0]?.path).toBe('server["${KEY}"]');
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir } from './helpers.js';
import { availableParallelism } from 'node:os';

/** The commit thread's default (ADR 0062): on where a second core can run it. */
const onByDefault = availableParallelism() > 1;

describe('storage', () => {
  const cwd = tempDir();
  const parse = (input: unknown) => parseConfig(input, { cwd, env: {} });

  it('accepts sqlite:<path>, resolved against the base directory', () => {
    expect(parse({ storage: 'sqlite:data/app.db' }).storage).toEqual({ driver: 'sqlite', file: path.join(cwd, 'data/app.db'), synchronous: 'normal', commitThread: onByDefault });
  });

  it('keeps sqlite::memory: as an in-memory database', () => {
    expect(parse({ storage: 'sqlite::memory:' }).storage).toEqual({ driver: 'sqlite', file: ':memory:', synchronous: 'normal', commitThread: false });
  });

  it('accepts postgres:// and postgresql:// strings', () => {
    expect(parse({ storage: 'postgres://u:p@db:5432/agentport' }).storage).toEqual({ driver: 'postgres', url: 'postgres://u:p@db:5432/agentport', schema: 'public', maxConnections: 10, migrate: true });
    expect(parse({ storage: 'postgresql://db/agentport' }).storage).toEqual({ driver: 'postgres', url: 'postgresql://db/agentport', schema: 'public', maxConnections: 10, migrate: true });
  });

  it('accepts the object forms', () => {
    expect(parse({ storage: { driver: 'sqlite', synchronous: 'full' } }).storage).toEqual({
      driver: 'sqlite',
      file: path.join(cwd, '.agentport', 'agentport.db'),
      synchronous: 'full',
      commitThread: onByDefault,
    });
    expect(parse({ storage: { driver: 'sqlite', commitThread: true } }).storage).toMatchObject({ driver: 'sqlite', synchronous: 'normal', commitThread: true });
    expect(parse({ storage: { driver: 'sqlite', commitThread: false } }).storage).toMatchObject({ driver: 'sqlite', commitThread: false });
    // A second connection to ':memory:' would open another database: never a thread there.
    expect(parse({ storage: { driver: 'sqlite', file: ':memory:', commitThread: true } }).storage).toMatchObject({ file: ':memory:', commitThread: false });
    expect(parse({ storage: { driver: 'postgres', url: 'postgres://db/x' } }).storage).toEqual({ driver: 'postgres', url: 'postgres://db/x', schema: 'public', maxConnections: 10, migrate: true });
  });

  it('puts the default database in the data directory', () => {
    expect(parse({ server: { dataDir: '/var/lib/agentport' } }).storage).toMatchObject({ file: '/var/lib/agentport/agentport.db' });
  });

  it('rejects other strings and drivers, naming the key', () => {
    expect(problemLines(configErrorOf(() => parse({ storage: 'mysql://db' })))).toEqual(['storage: must be "sqlite:<path>", a postgres:// URL, or a mapping with driver: sqlite | postgres (got "mysql://db")']);
    expect(problemLines(configErrorOf(() => parse({ storage: { driver: 'mysql' } })))).toEqual(['storage.driver: must be one of "sqlite", "postgres" (got "mysql")']);
    expect(problemLines(configErrorOf(() => parse({ storage: { driver: 'postgres' } })))).toEqual(['storage.url: is required']);
    expect(problemLines(configErrorOf(() => parse({ storage: { driver: 'sqlite', synchronous: 'off' } })))).toEqual(['storage.synchronous: must be one of "normal", "full" (got "off")']);
  });

  it('rejects keys of the other driver', () => {
    expect(configErrorOf(() => parse({ storage: { driver: 'sqlite', url: 'postgres://x' } })).problems[0]?.path).toBe('storage.url');
  });
});

describe('bus', () => {
  const parse = (input: unknown) => parseConfig(input, { cwd: tempDir(), env: {} });

  it('defaults to in-process and accepts redis URLs', () => {
    expect(parse({}).bus).toEqual({ driver: 'in-process' });
    expect(parse({ bus: 'in-process' }).bus).toEqual({ driver: 'in-process' });
    expect(parse({ bus: 'redis://cache:6379/0' }).bus).toEqual({ driver: 'redis', url: 'redis://cache:6379/0', prefix: 'agentport' });
    expect(parse({ bus: { driver: 'redis', url: 'rediss://cache' } }).bus).toEqual({ driver: 'redis', url: 'rediss://cache', prefix: 'agentport' });
  });
});

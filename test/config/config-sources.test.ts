/**
 * Where each resolved value came from (src/config/config-sources.ts), as the Settings page shows
 * it: a flag wins over the file, a `${VAR}` in the file is the environment, a value written in the
 * file is the file's, anything else is a default (or derived); the ports filled in after binding
 * keep the sources.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, sourceFile, sourceOf, withListeningPorts } from '../../src/config/index.js';
import { tempDir, writeFile } from './helpers.js';

describe('configuration value sources', () => {
  const dir = tempDir();
  const file = writeFile(
    dir,
    'agentport.yaml',
    'server:\n  host: 127.0.0.1\n  port: ${PORT}\n  logLevel: warn\nstorage:\n  driver: postgres\n  url: ${DATABASE_URL}\nagents:\n  - id: echo\n    builtin: echo\n    card:\n      description: "costs $${5}"\n',
  );
  const config = loadConfig({ file, env: { PORT: '9300', DATABASE_URL: 'postgres://u:p@127.0.0.1/db' }, overrides: { logLevel: 'debug' } });

  it('names the flag, the environment, the file and the defaults', () => {
    expect(sourceFile(config)).toBe(file);
    expect(sourceOf(config, ['server', 'logLevel'])).toBe('flag');
    expect(sourceOf(config, ['server', 'port'])).toBe('env');
    expect(sourceOf(config, ['storage', 'url'])).toBe('env');
    expect(sourceOf(config, ['server', 'host'])).toBe('file');
    expect(sourceOf(config, ['agents', 0, 'id'])).toBe('file');
    // `$${` is the escape for a literal `${`, not a variable
    expect(sourceOf(config, ['agents', 0, 'card', 'description'])).toBe('file');
    expect(sourceOf(config, ['limits', 'sseKeepAliveMs'])).toBe('default');
    expect(sourceOf(config, ['server', 'publicUrl'])).toBe('default');
  });

  it('keeps them on the copy with the bound ports', () => {
    const bound = withListeningPorts(config, { http: 9301 });
    expect(sourceOf(bound, ['server', 'port'])).toBe('env');
    expect(sourceFile(bound)).toBe(file);
  });
});

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ConfigError } from '../../src/config/index.js';

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'agentport-config-'));
}

/** Writes `text` to `dir/name` (creating folders) and returns the absolute path. */
export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but the configuration was accepted');
}

/** The problem lines of a ConfigError, as `path: message`. */
export function problemLines(error: ConfigError): string[] {
  return error.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
}

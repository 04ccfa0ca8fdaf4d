/**
 * loadConfig: file discovery → YAML → `${VAR}` interpolation → CLI overrides → validation →
 * resolution. Every problem found along the way is collected and thrown as one ConfigError, so a
 * user fixes the file in one pass rather than one error per restart.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { Config } from './config.js';
import { recordSources } from './config-sources.js';
import { ConfigError, configErrorMap, formatPath, problemsFromZod, sortByFileOrder, type ConfigProblem, type PathSegment } from './errors.js';
import { interpolateEnv } from './interpolate.js';
import { checkRelations } from './relations.js';
import { resolveConfig } from './resolve.js';
import { configFileSchema } from './schema.js';

export const DEFAULT_CONFIG_FILE = 'agentport.yaml';
export const CONFIG_FILE_ENV = 'AGENTPORT_CONFIG';

/** Values from command-line flags; they win over the file. Strings are validated like file values. */
export interface ConfigOverrides {
  host?: string;
  port?: number | string;
  grpcPort?: number | string;
  /** relative to the current directory (not the config file's) */
  dataDir?: string;
  logLevel?: string;
}

export interface LoadConfigOptions {
  /** default: $AGENTPORT_CONFIG, else ./agentport.yaml when it exists, else no file (defaults only) */
  file?: string;
  overrides?: ConfigOverrides;
  /** for `${VAR}` interpolation and AGENTPORT_CONFIG; default process.env */
  env?: NodeJS.ProcessEnv;
  /** default process.cwd() */
  cwd?: string;
}

const OVERRIDE_PATHS: Record<keyof ConfigOverrides, { path: PathSegment[]; flag: string }> = {
  host: { path: ['server', 'host'], flag: '--host' },
  port: { path: ['server', 'port'], flag: '--port' },
  grpcPort: { path: ['server', 'grpc', 'port'], flag: '--grpc-port' },
  dataDir: { path: ['server', 'dataDir'], flag: '--data-dir' },
  logLevel: { path: ['server', 'logLevel'], flag: '--log-level' },
};

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = findConfigFile(options.file, env, cwd);
  const input = file === undefined ? {} : readConfigFile(file);
  return parseConfig(input, { env, cwd, overrides: options.overrides, file });
}

/**
 * Validates and resolves an already parsed configuration object (what the YAML would contain).
 * Relative paths resolve against the file's directory when `file` is given, else against `cwd`.
 */
export function parseConfig(input: unknown, options: { env?: NodeJS.ProcessEnv; cwd?: string; overrides?: ConfigOverrides; file?: string } = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = options.file === undefined ? undefined : path.resolve(cwd, options.file);
  const baseDir = file === undefined ? cwd : path.dirname(file);

  if (input === null || input === undefined) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError([{ path: '', message: 'the file must be a mapping of keys (server:, agents:, …), not a single value or a list' }], file);
  }

  const interpolated = interpolateEnv(input, env);
  const { value, overridden } = applyOverrides(interpolated.value as Record<string, unknown>, options.overrides ?? {}, cwd);
  const problems: ConfigProblem[] = [...interpolated.problems];
  const underFailed = (segments: readonly PathSegment[]) => interpolated.failed.some((failed) => failed.every((segment, i) => segments[i] === segment));

  const parsed = configFileSchema.safeParse(value, { errorMap: configErrorMap });
  if (!parsed.success) {
    for (const problem of problemsFromZod(parsed.error, value, (at) => knownKeysAt(at, value))) {
      if (underFailed(problem.segments)) continue;
      const flag = overridden.get(problem.path);
      problems.push({ path: problem.path, message: flag ? `${problem.message} (from ${flag})` : problem.message });
    }
  }
  problems.push(...checkRelations(value));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(sortByFileOrder(problems, value), file);

  const resolved = resolveConfig(parsed.data, baseDir, file);
  if (resolved.problems.length > 0) throw new ConfigError(resolved.problems, file);
  recordSources(resolved.config, input, overridden.keys(), file);
  return resolved.config;
}

function findConfigFile(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const named = explicit ?? (env[CONFIG_FILE_ENV] ? env[CONFIG_FILE_ENV] : undefined);
  if (named !== undefined) return path.resolve(cwd, named);
  const conventional = path.resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(conventional) ? conventional : undefined;
}

function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory, not a file' : `cannot read it (${code ?? String(error)})`;
    throw new ConfigError([{ path: '', message: reason }], file);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const at = lineCounter.linePos(e.pos[0]);
        return { path: '', message: `line ${at.line}, column ${at.col}: ${e.message.split('\n')[0]}` };
      }),
      file,
    );
  }
  return doc.toJS({ maxAliasCount: 100 });
}

function applyOverrides(input: Record<string, unknown>, overrides: ConfigOverrides, cwd: string): { value: Record<string, unknown>; overridden: Map<string, string> } {
  const overridden = new Map<string, string>();
  let value = input;
  for (const [name, target] of Object.entries(OVERRIDE_PATHS) as Array<[keyof ConfigOverrides, (typeof OVERRIDE_PATHS)[keyof ConfigOverrides]]>) {
    let given = overrides[name];
    if (given === undefined) continue;
    if (name === 'dataDir' && typeof given === 'string') given = path.resolve(cwd, given);
    value = setIn(value, target.path, given) as Record<string, unknown>;
    overridden.set(formatPath(target.path), target.flag);
  }
  return { value, overridden };
}

/** Copy-on-write set; replaces non-mapping values on the way (the flag wins over a broken section). */
function setIn(root: unknown, at: readonly PathSegment[], leaf: unknown): unknown {
  if (at.length === 0) return leaf;
  const base = root !== null && typeof root === 'object' && !Array.isArray(root) ? (root as Record<string, unknown>) : {};
  const [head, ...rest] = at as [string, ...PathSegment[]];
  return { ...base, [head]: setIn(base[head], rest, leaf) };
}

/** The keys the schema allows at `at`, for "did you mean" hints on unknown keys. */
function knownKeysAt(at: readonly PathSegment[], input: unknown): string[] {
  let schema: z.ZodTypeAny | undefined = configFileSchema;
  let value: unknown = input;
  const unwrap = (s: z.ZodTypeAny | undefined): z.ZodTypeAny | undefined => {
    for (;;) {
      if (s instanceof z.ZodDefault) s = s._def.innerType;
      else if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap();
      else if (s instanceof z.ZodEffects) s = s.innerType();
      else if (s instanceof z.ZodDiscriminatedUnion) {
        const driver = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[s.discriminator] : undefined;
        s = s.optionsMap.get(driver as string);
      } else return s;
    }
  };
  for (const segment of at) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodTypeAny>)[segment];
    else if (schema instanceof z.ZodArray) schema = schema.element;
    else if (schema instanceof z.ZodRecord) schema = schema.valueSchema;
    else return [];
    value = value !== null && typeof value === 'object' ? (value as Record<PathSegment, unknown>)[segment] : undefined;
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape as object) : [];
}

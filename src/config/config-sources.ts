/**
 * Where each value of a resolved configuration came from, for the console's Settings page: a
 * command-line flag, the environment (a `${VAR}` in the file), the file itself, or neither (a
 * default, or a value derived from others, such as a public URL from host and port). Kept beside
 * the Config it describes (a WeakMap: the Config type stays as it is), recorded by parseConfig from
 * what it read before interpolation.
 */
import { formatPath, type PathSegment } from './errors.js';

export type ValueSource = 'flag' | 'env' | 'file' | 'default';

interface Recorded {
  /** the configuration as written, before `${VAR}` interpolation */
  raw: unknown;
  /** formatted paths (`server.port`) set by a flag */
  flags: ReadonlySet<string>;
  /** the file read, if any */
  file?: string;
}

const recorded = new WeakMap<object, Recorded>();

/** A `${VAR}` reference (not the `$${` escape). */
const REFERENCE = /(^|[^$])\$\{/;

export function recordSources(config: object, raw: unknown, flags: Iterable<string>, file?: string): void {
  recorded.set(config, { raw, flags: new Set(flags), ...(file === undefined ? {} : { file }) });
}

/** The sources of `from` also describe `to` (a copy with the bound ports filled in). */
export function copySources(from: object, to: object): void {
  const r = recorded.get(from);
  if (r) recorded.set(to, r);
}

/** Whether the sources of this configuration were recorded (parseConfig / loadConfig made it). */
export const hasSources = (config: object) => recorded.has(config);

/** The file this configuration was read from, if any. */
export const sourceFile = (config: object) => recorded.get(config)?.file;

/** Where the value at `path` of the resolved configuration came from. */
export function sourceOf(config: object, path: readonly PathSegment[]): ValueSource {
  const r = recorded.get(config);
  if (!r) return 'default';
  for (let n = path.length; n > 0; n--) if (r.flags.has(formatPath(path.slice(0, n)))) return 'flag';
  let value = r.raw;
  for (const segment of path) {
    // A whole value written as one `${VAR}` (a URL, a list from JSON) covers what is under it.
    if (typeof value === 'string') return REFERENCE.test(value) ? 'env' : 'file';
    if (value === null || typeof value !== 'object' || !(segment in value)) return 'default';
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  if (value === undefined) return 'default';
  return mentionsVariable(value) ? 'env' : 'file';
}

function mentionsVariable(value: unknown): boolean {
  if (typeof value === 'string') return REFERENCE.test(value);
  if (Array.isArray(value)) return value.some(mentionsVariable);
  if (value !== null && typeof value === 'object') return Object.values(value).some(mentionsVariable);
  return false;
}

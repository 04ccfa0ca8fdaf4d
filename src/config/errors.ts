/**
 * ConfigError and the translation of zod issues into one line per problem, each led by the key path
 * as the user would write it (`agents[1].id`), ending with the offending value where that helps.
 * Secrets (API keys, passwords in URLs) are never echoed back.
 */
import { z } from 'zod';
import { redactUrls } from './redact-url.js';

export type PathSegment = string | number;

export interface ConfigProblem {
  /** `agents[1].id`; empty for problems with the file as a whole */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  override readonly name = 'ConfigError';

  constructor(
    readonly problems: readonly ConfigProblem[],
    /** the file being read, if any */
    readonly file?: string,
  ) {
    super(formatProblems(problems, file));
  }
}

function formatProblems(problems: readonly ConfigProblem[], file: string | undefined): string {
  const where = file ? ` in ${file}` : '';
  const head = problems.length === 1 ? `Invalid configuration${where}:` : `${problems.length} problems in the configuration${where}:`;
  return [head, ...problems.map((p) => `  ${p.path ? `${p.path}: ` : ''}${p.message}`)].join('\n');
}

export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let value = root;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return value;
}

// Any key named secret or clientSecret, wherever it is (vault keys, OAuth clients of remotes), besides the API keys.
const SECRET_PATH = /^auth\.apiKeys\[\d+\]\.key$|(^|\.)(secret|clientSecret)$/;

export function describeValue(path: string, value: unknown): string {
  if (SECRET_PATH.test(path)) return typeof value === 'string' ? `a string of ${value.length} characters` : typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const shown = redactUrls(value);
    return JSON.stringify(shown.length > 80 ? `${shown.slice(0, 77)}...` : shown);
  }
  return String(value);
}

/** Default wording for zod's own issues; messages given in the schema take precedence. */
export const configErrorMap: z.ZodErrorMap = (issue, ctx) => {
  switch (issue.code) {
    case z.ZodIssueCode.invalid_type:
      // a schema's own invalid_type_error arrives as defaultError; keep it
      if (ctx.defaultError !== 'Required' && !ctx.defaultError.startsWith('Expected ')) return { message: ctx.defaultError };
      if (issue.received === 'undefined') return { message: 'is required' };
      // YAML reads `version: 1.0` as the number 1
      if (issue.expected === 'string' && (issue.received === 'number' || issue.received === 'boolean')) {
        return { message: 'must be a string (put the value in quotes)' };
      }
      return { message: `must be ${article(issue.expected)}` };
    case z.ZodIssueCode.invalid_enum_value:
      return { message: `must be one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}` };
    case z.ZodIssueCode.invalid_literal:
      return { message: `must be ${JSON.stringify(issue.expected)}` };
    case z.ZodIssueCode.invalid_union_discriminator:
      return { message: `must be one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}` };
    default:
      return { message: ctx.defaultError };
  }
};

function article(type: string): string {
  switch (type) {
    case 'object':
      return 'a mapping of keys';
    case 'array':
      return 'a list';
    case 'integer':
      return 'an integer';
    default:
      return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
  }
}

/**
 * One problem per zod issue (one per key for unknown keys), with the offending value when it is
 * not simply missing. `knownKeys` lists the keys allowed where an unknown key was found.
 */
export function problemsFromZod(error: z.ZodError, input: unknown, knownKeys: (path: readonly PathSegment[]) => readonly string[]): Array<ConfigProblem & { segments: PathSegment[] }> {
  const problems: Array<ConfigProblem & { segments: PathSegment[] }> = [];
  for (const issue of error.issues) {
    if (issue.code === z.ZodIssueCode.unrecognized_keys) {
      const known = knownKeys(issue.path);
      for (const key of issue.keys) {
        const segments = [...issue.path, key];
        problems.push({ segments, path: formatPath(segments), message: unknownKeyMessage(key, known) });
      }
      continue;
    }
    const path = formatPath(issue.path);
    const value = valueAt(input, issue.path);
    const missing = issue.code === z.ZodIssueCode.invalid_type && issue.received === 'undefined';
    const suffix = missing || value === undefined ? '' : ` (got ${describeValue(path, value)})`;
    problems.push({ segments: [...issue.path], path, message: `${issue.message}${suffix}` });
  }
  return problems;
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const close = known
    .map((candidate) => ({ candidate, distance: editDistance(key.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ distance, candidate }) => distance <= Math.max(1, Math.floor(candidate.length / 3)))
    .sort((a, b) => a.distance - b.distance)[0];
  if (close) return `unknown key (did you mean "${close.candidate}"?)`;
  return known.length ? `unknown key (allowed here: ${known.join(', ')})` : 'unknown key';
}

/** Optimal string alignment distance: edits plus adjacent transpositions ("prot" → "port" is 1). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else segments.push(match[3]!);
  }
  return segments;
}

/**
 * Orders problems as their keys appear in the file (keys the file lacks go after its own keys,
 * in the order the problems were found), so the list reads top to bottom with the file.
 */
export function sortByFileOrder<P extends ConfigProblem>(problems: readonly P[], input: unknown): P[] {
  const rank = (path: string): number[] => {
    const out: number[] = [];
    let value = input;
    for (const segment of parsePath(path)) {
      if (typeof segment === 'number') out.push(segment);
      else {
        const keys = value !== null && typeof value === 'object' ? Object.keys(value) : [];
        const index = keys.indexOf(segment);
        out.push(index === -1 ? keys.length : index);
      }
      value = value !== null && typeof value === 'object' ? (value as Record<PathSegment, unknown>)[segment] : undefined;
    }
    return out;
  };
  const ranked = problems.map((problem, order) => ({ problem, order, rank: rank(problem.path) }));
  ranked.sort((a, b) => {
    for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) {
      if (a.rank[i] !== b.rank[i]) return a.rank[i]! - b.rank[i]!;
    }
    return a.rank.length - b.rank.length || a.order - b.order;
  });
  return ranked.map((r) => r.problem);
}

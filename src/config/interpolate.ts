/**
 * `${VAR}` and `${VAR:-default}` in string values, substituted from the environment before
 * validation, so secrets and per-deployment values stay out of the file. `:-` follows the shell: the
 * default applies when the variable is unset or empty. `$${` writes a literal `${`. Keys are never
 * interpolated, only values.
 */
import { formatPath, type ConfigProblem, type PathSegment } from './errors.js';

export interface InterpolationResult {
  value: unknown;
  problems: ConfigProblem[];
  /** paths whose value could not be substituted; validation issues under them are noise */
  failed: PathSegment[][];
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export function interpolateEnv(input: unknown, env: Readonly<Record<string, string | undefined>>): InterpolationResult {
  const problems: ConfigProblem[] = [];
  const failed: PathSegment[][] = [];

  const visit = (value: unknown, path: PathSegment[]): unknown => {
    if (typeof value === 'string') return substitute(value, path);
    if (Array.isArray(value)) return value.map((item, index) => visit(item, [...path, index]));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = visit(item, [...path, key]);
      return out;
    }
    return value;
  };

  const substitute = (text: string, path: PathSegment[]): string => {
    if (!text.includes('$')) return text;
    let ok = true;
    const result = text.replace(REFERENCE, (match, body: string | undefined) => {
      if (match === '$${') return '${';
      const parsed = body === undefined ? null : VARIABLE.exec(body);
      if (!parsed) {
        ok = false;
        problems.push({
          path: formatPath(path),
          message: `invalid reference ${body === undefined ? '"${" without a closing "}"' : JSON.stringify(match)}: write \${NAME} or \${NAME:-default} (or $\${ for a literal "\${")`,
        });
        return match;
      }
      const name = parsed[1]!; // group 1 is not optional in VARIABLE
      const fallback = parsed[2];
      const set = env[name];
      if (set !== undefined && (set !== '' || fallback === undefined)) return set;
      if (fallback !== undefined) return fallback;
      ok = false;
      problems.push({
        path: formatPath(path),
        message: `environment variable ${name} is not set (referenced as \${${name}}; set it, or write \${${name}:-default})`,
      });
      return match;
    });
    if (!ok) failed.push(path);
    return result;
  };

  return { value: visit(input, []), problems, failed };
}

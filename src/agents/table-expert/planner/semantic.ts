/**
 * The semantic layer of a dataset (`datasets[i].semantic`, and the agent-wide `synonyms`): what the
 * people who own the data say about it — column descriptions, synonyms for any column (exact names
 * with capitals and spaces included), units, value aliases and verified questions with their SQL.
 * It is checked against the schema when the tables are first read: a name that matches no table or
 * column is a configuration error naming it, with the nearest names as did-you-mean.
 */
import { closest, distance } from 'fastest-levenshtein';
import type { TableProfile } from '../catalog/profile.js';

export type { SemanticColumn, SemanticSpec } from './semantic-spec.js';
import type { SemanticSpec } from './semantic-spec.js';

export interface ResolvedSemantic {
  /** phrase → `table.column` (or `table`) */
  synonyms: Record<string, string>;
  units: Record<string, string>;
  descriptions: Record<string, string>;
  values: Array<{ alias: string; table: string; column: string; value: string }>;
  verified: Array<{ question: string; sql: string; key: string }>;
  /** `table.column` of each dataset's default time column */
  timeColumns: string[];
  /** named measures, their SQL with every column written as "table"."column" */
  measures: Array<{ name: string; table: string; sql: string; description?: string }>;
}

export class SemanticError extends Error {
  override readonly name = 'SemanticError';
}

/** A question as verified questions are matched: lower case, words only. */
export const questionKey = (q: string): string =>
  q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

function didYouMean(name: string, known: string[]): string {
  if (!known.length) return '';
  const near = closest(name, known);
  return distance(name.toLowerCase(), near.toLowerCase()) <= Math.max(3, Math.floor(name.length / 2)) ? ` (did you mean "${near}"?)` : ` (known: ${known.slice(0, 8).join(', ')})`;
}

/**
 * `table.column`, or `column` when exactly one of the tables has it; `table` alone when allowed.
 * Column names are matched exactly first, then without regard to case.
 */
export function resolveColumnName(name: string, profiles: readonly TableProfile[], where: string, allowTable = false): { table: string; column?: string } {
  const exact = (t: TableProfile, c: string) => t.columns.find((x) => x.name === c) ?? t.columns.find((x) => x.name.toLowerCase() === c.toLowerCase());
  const dot = name.indexOf('.');
  if (dot > 0) {
    const table = profiles.find((p) => p.name === name.slice(0, dot).toLowerCase());
    if (table) {
      const col = exact(table, name.slice(dot + 1));
      if (col) return { table: table.name, column: col.name };
      throw new SemanticError(
        `${where}: table ${table.name} has no column "${name.slice(dot + 1)}"${didYouMean(
          name.slice(dot + 1),
          table.columns.map((c) => c.name),
        )}`,
      );
    }
  }
  if (allowTable) {
    const t = profiles.find((p) => p.name === name.toLowerCase());
    if (t) return { table: t.name };
  }
  const owners = profiles.filter((p) => exact(p, name));
  if (owners.length === 1) return { table: owners[0]!.name, column: exact(owners[0]!, name)!.name };
  if (owners.length > 1) throw new SemanticError(`${where}: "${name}" is a column of ${owners.map((o) => o.name).join(' and ')}; write table.column`);
  const all = profiles.flatMap((p) => [...p.columns.map((c) => c.name), ...p.columns.map((c) => `${p.name}.${c.name}`), ...(allowTable ? [p.name] : [])]);
  throw new SemanticError(`${where}: "${name}" matches no ${allowTable ? 'table or ' : ''}column${didYouMean(name, all)}`);
}

/** Checks a semantic layer against the schema and turns it into what the planner and the prompt use. */
export function resolveSemantic(specs: ReadonlyArray<{ where: string; dataset?: string; spec: SemanticSpec }>, synonyms: Readonly<Record<string, string>>, profiles: readonly TableProfile[]): ResolvedSemantic {
  const out: ResolvedSemantic = { synonyms: {}, units: {}, descriptions: {}, values: [], verified: [], timeColumns: [], measures: [] };
  for (const [word, target] of Object.entries(synonyms)) {
    const r = resolveColumnName(target, profiles, `options.synonyms.${word}`, true);
    out.synonyms[word.toLowerCase()] = r.column ? `${r.table}.${r.column}` : r.table;
  }
  for (const { where, dataset, spec } of specs) {
    const tables = dataset ? profiles.filter((p) => p.dataset === dataset) : profiles;
    for (const [name, c] of Object.entries(spec.columns ?? {})) {
      const r = resolveColumnName(name, tables, `${where}.columns`);
      const key = `${r.table}.${r.column}`;
      for (const s of c.synonyms ?? []) out.synonyms[s.toLowerCase()] = key;
      if (c.unit) out.units[key] = c.unit.toLowerCase();
      if (c.description) out.descriptions[key] = c.description;
    }
    for (const [alias, target] of Object.entries(spec.values ?? {})) {
      const eq = target.indexOf('=');
      if (eq <= 0) throw new SemanticError(`${where}.values.${alias}: write column=value, e.g. "country=USA"`);
      const r = resolveColumnName(target.slice(0, eq).trim(), tables, `${where}.values.${alias}`);
      out.values.push({ alias: alias.toLowerCase(), table: r.table, column: r.column!, value: target.slice(eq + 1).trim() });
    }
    for (const v of spec.verified ?? []) out.verified.push({ ...v, key: questionKey(v.question) });
    if (spec.timeColumn) {
      const r = resolveColumnName(spec.timeColumn, tables, `${where}.timeColumn`);
      out.timeColumns.push(`${r.table}.${r.column}`);
    }
    for (const [name, m] of Object.entries(spec.measures ?? {}))
      out.measures.push({ name: name.toLowerCase(), ...formulaOf(m.sql, tables, `${where}.measures.${name}`), ...(m.description ? { description: m.description } : {}) });
  }
  return out;
}

/** words of a formula that are SQL, not column names */
const SQL_WORDS = new Set([
  'and',
  'or',
  'not',
  'case',
  'when',
  'then',
  'else',
  'end',
  'distinct',
  'filter',
  'where',
  'as',
  'null',
  'is',
  'in',
  'like',
  'between',
  'true',
  'false',
  'over',
  'partition',
  'by',
  'order',
  'asc',
  'desc',
  'cast',
  'double',
  'integer',
  'bigint',
  'decimal',
  'varchar',
  'date',
]);

/**
 * A named measure's SQL with each column it names checked against the tables (a name matching
 * nothing is a configuration error with did-you-mean) and written out in full, so the formula
 * stays right inside a query that joins other tables. Its columns must belong to one table.
 */
function formulaOf(sql: string, tables: readonly TableProfile[], where: string): { table: string; sql: string } {
  const owners = new Set<string>();
  const rewritten = sql.replace(/'(?:[^']|'')*'|"((?:[^"]|"")+)"|\b([A-Za-z_][A-Za-z0-9_]*)\b(\s*\()?/g, (whole, quoted: string | undefined, bare: string | undefined, call: string | undefined) => {
    if (whole.startsWith("'") || call || (bare && (SQL_WORDS.has(bare.toLowerCase()) || /^\d/.test(bare)))) return whole;
    const name = quoted ? quoted.replace(/""/g, '"') : bare!;
    const r = resolveColumnName(name, tables, where);
    owners.add(r.table);
    return `"${r.table}"."${r.column!.replace(/"/g, '""')}"`;
  });
  if (owners.size !== 1) throw new SemanticError(`${where}: a measure's columns must come from one table${owners.size ? ` (this one uses ${[...owners].join(', ')})` : ' (it names no column)'}`);
  return { table: [...owners][0]!, sql: rewritten };
}

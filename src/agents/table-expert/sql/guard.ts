/**
 * The query guard: what may run against the datasets. Only one SELECT (or WITH … SELECT) over the
 * declared tables passes; a rejection names its reason. It is the first of three layers: the
 * engine also requires DuckDB's own prepared statement type to be SELECT, and the DuckDB instance
 * runs with external access off, extension loading off and its configuration locked
 * (see engine/duckdb-engine.ts). Time, row and memory limits bound what passes.
 *
 * Two stages: `checkSqlText` reads tokens (statement count, first keyword, forbidden keywords),
 * `checkSqlAst` walks DuckDB's own parse tree (json_serialize_sql) for table references, table
 * functions and file paths. Both are pure functions.
 */
import path from 'node:path';
import { SqlLexError, tokenize, type Token } from './lexer.js';

export type GuardCode =
  | 'empty'
  | 'too_long'
  | 'unreadable'
  | 'multiple_statements'
  | 'not_select'
  | 'forbidden_keyword'
  | 'forbidden_function'
  | 'forbidden_table'
  | 'file_outside_datasets'
  | 'unknown_table'
  | 'parse_error';

export class QueryRejectedError extends Error {
  override readonly name = 'QueryRejectedError';
  constructor(
    readonly code: GuardCode,
    readonly reason: string,
  ) {
    super(`Query rejected: ${reason}`);
  }
}

const START_WORDS = new Set(['select', 'with', 'from', 'values']);

/** Statements and clauses that change data, configuration or the database, or leave the sandbox. */
const FORBIDDEN_WORDS = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'upsert',
  'create',
  'drop',
  'alter',
  'truncate',
  'attach',
  'detach',
  'copy',
  'export',
  'import',
  'install',
  'load',
  'force',
  'pragma',
  'set',
  'reset',
  'call',
  'checkpoint',
  'vacuum',
  'analyze',
  'grant',
  'revoke',
  'begin',
  'commit',
  'rollback',
  'abort',
  'transaction',
  'use',
  'prepare',
  'execute',
  'deallocate',
  'comment',
  'describe',
  'show',
  'summarize',
  'explain',
  'secret',
]);

/** Table functions that only generate data. File readers are checked separately, by path. */
const GENERATOR_TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest']);
const FILE_READERS = new Set(['read_csv', 'read_csv_auto', 'read_parquet', 'parquet_scan', 'read_json', 'read_json_auto', 'read_ndjson', 'read_ndjson_auto']);
/** Scalar functions that read the environment or configuration. */
const FORBIDDEN_SCALARS = new Set(['current_setting', 'getenv', 'read_text', 'read_blob', 'query', 'query_table']);
/** Functions whose size argument can build one huge value that no interrupt reaches. */
const AMPLIFIERS = new Map([
  ['repeat', 1],
  ['lpad', 1],
  ['rpad', 1],
]);
const MAX_AMPLIFIED = 10_000;

export interface SqlTextLimits {
  maxSqlChars: number;
}

/** Stage 1: tokens. Returns the statement without trailing semicolons. */
export function checkSqlText(sql: string, limits: SqlTextLimits): string {
  if (sql.length > limits.maxSqlChars) throw new QueryRejectedError('too_long', `the statement is ${sql.length} characters long; the limit is ${limits.maxSqlChars}`);
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch (e) {
    if (e instanceof SqlLexError) throw new QueryRejectedError('unreadable', `${e.message} at offset ${e.pos}`);
    throw e;
  }
  if (tokens.length === 0) throw new QueryRejectedError('empty', 'the statement is empty');
  const firstSemicolon = tokens.findIndex((t) => t.kind === 'semicolon');
  if (firstSemicolon >= 0 && tokens.slice(firstSemicolon).some((t) => t.kind !== 'semicolon')) {
    throw new QueryRejectedError('multiple_statements', 'only one statement is allowed; remove everything after the first ";"');
  }
  const body = firstSemicolon >= 0 ? tokens.slice(0, firstSemicolon) : tokens;
  if (body.length === 0) throw new QueryRejectedError('empty', 'the statement is empty');
  const first = body.find((t) => t.kind !== 'lparen');
  if (first?.kind !== 'word' || !START_WORDS.has(first.text.toLowerCase())) {
    throw new QueryRejectedError('not_select', `only a SELECT (or WITH … SELECT) statement is allowed; this one starts with ${first ? JSON.stringify(first.text) : 'nothing'}`);
  }
  for (const t of body) {
    if (t.kind === 'word' && FORBIDDEN_WORDS.has(t.text.toLowerCase())) {
      throw new QueryRejectedError('forbidden_keyword', `${t.text.toUpperCase()} is not allowed in a read-only query (only SELECT is); if it is a column name, write it in double quotes`);
    }
    if (t.kind === 'param') throw new QueryRejectedError('not_select', 'parameters ($1) are not supported; write the values into the statement');
  }
  const end = firstSemicolon >= 0 ? tokens[firstSemicolon]!.pos : sql.length;
  return sql.slice(0, end).trim();
}

export interface AstContext {
  /** lowercase names of the tables the caller may read */
  tables: ReadonlySet<string>;
  /** absolute folders and files the declared datasets live in */
  fileRoots: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Stage 2: DuckDB's parse tree, as json_serialize_sql returns it for the statement. */
export function checkSqlAst(serialized: string, ctx: AstContext): void {
  let root: Json;
  try {
    root = JSON.parse(serialized) as Json;
  } catch {
    throw new QueryRejectedError('parse_error', 'the statement could not be parsed');
  }
  if (!isObj(root)) throw new QueryRejectedError('parse_error', 'the statement could not be parsed');
  if (root.error === true) {
    const message = typeof root.error_message === 'string' ? root.error_message : 'parse error';
    if (/only select statements/i.test(message)) throw new QueryRejectedError('not_select', 'only a SELECT (or WITH … SELECT) statement is allowed');
    throw new QueryRejectedError('parse_error', message);
  }
  const statements = Array.isArray(root.statements) ? root.statements : [];
  if (statements.length !== 1) throw new QueryRejectedError('multiple_statements', 'only one statement is allowed');

  const cteNames = new Set<string>();
  collect(root, (o) => {
    const map = isObj(o.cte_map) && Array.isArray(o.cte_map.map) ? o.cte_map.map : [];
    for (const entry of map) if (isObj(entry) && typeof entry.key === 'string') cteNames.add(entry.key.toLowerCase());
  });

  collect(root, (o) => {
    if (o.type === 'BASE_TABLE' && typeof o.table_name === 'string') checkTable(o, cteNames, ctx);
    else if (o.type === 'TABLE_FUNCTION' && isObj(o.function)) checkTableFunction(o.function, ctx);
    if (o.class === 'FUNCTION' && typeof o.function_name === 'string') checkScalar(o);
  });
}

function collect(node: Json, visit: (o: Obj) => void): void {
  if (Array.isArray(node)) for (const v of node) collect(v, visit);
  else if (isObj(node)) {
    visit(node);
    for (const v of Object.values(node)) if (typeof v === 'object' && v !== null) collect(v, visit);
  }
}

function checkTable(o: Obj, cteNames: ReadonlySet<string>, ctx: AstContext): void {
  const name = String(o.table_name);
  const schema = typeof o.schema_name === 'string' ? o.schema_name.toLowerCase() : '';
  const catalog = typeof o.catalog_name === 'string' ? o.catalog_name.toLowerCase() : '';
  if ((schema && schema !== 'main') || (catalog && catalog !== 'memory')) {
    throw new QueryRejectedError('forbidden_table', `${[catalog, schema, name].filter(Boolean).join('.')} is not one of the dataset tables; only the tables of the datasets can be read`);
  }
  const lower = name.toLowerCase();
  if (!schema && !catalog && cteNames.has(lower)) return;
  if (ctx.tables.has(lower)) return;
  if (/[/\\:.*]/.test(name)) {
    throw new QueryRejectedError('file_outside_datasets', `reading files by name (${JSON.stringify(name)}) is not allowed; query the dataset tables instead`);
  }
  const known = [...ctx.tables].sort().slice(0, 30).join(', ');
  throw new QueryRejectedError('unknown_table', `there is no table named ${JSON.stringify(name)}${known ? ` (tables: ${known})` : ''}`);
}

function checkTableFunction(fn: Obj, ctx: AstContext): void {
  const name = String(fn.function_name ?? '').toLowerCase();
  const schema = typeof fn.schema === 'string' ? fn.schema : '';
  if (schema && schema !== 'main') throw new QueryRejectedError('forbidden_function', `table function ${schema}.${name} is not allowed`);
  if (GENERATOR_TABLE_FUNCTIONS.has(name)) return;
  if (FILE_READERS.has(name)) {
    const children = Array.isArray(fn.children) ? fn.children : [];
    const paths = constantStrings(children[0]);
    if (!paths || paths.length === 0) {
      throw new QueryRejectedError('file_outside_datasets', `${name} needs a constant file path inside a dataset folder`);
    }
    for (const p of paths) {
      if (!insideRoots(p, ctx.fileRoots)) {
        throw new QueryRejectedError('file_outside_datasets', `${name}(${JSON.stringify(p)}) reads outside the declared datasets; only dataset files can be read`);
      }
    }
    return;
  }
  throw new QueryRejectedError('forbidden_function', `table function ${name}() is not allowed; read the dataset tables instead`);
}

function checkScalar(fn: Obj): void {
  const name = String(fn.function_name).toLowerCase();
  if (FORBIDDEN_SCALARS.has(name) || name.startsWith('duckdb_') || name.startsWith('pragma_')) {
    throw new QueryRejectedError('forbidden_function', `function ${name}() is not allowed`);
  }
  const sizeArg = AMPLIFIERS.get(name);
  if (sizeArg !== undefined) {
    const children = Array.isArray(fn.children) ? fn.children : [];
    const size = constantNumber(children[sizeArg]);
    if (size === undefined || size > MAX_AMPLIFIED) {
      throw new QueryRejectedError('forbidden_function', `${name}() needs a constant length of at most ${MAX_AMPLIFIED}`);
    }
  }
}

function constantValue(node: Json | undefined): Json | undefined {
  if (!isObj(node) || node.class !== 'CONSTANT' || !isObj(node.value)) return undefined;
  return node.value.is_null === true ? null : node.value.value;
}

function constantNumber(node: Json | undefined): number | undefined {
  const v = constantValue(node);
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}

/** A constant string, or a list of them (`['a.csv', 'b.csv']`), else undefined. */
function constantStrings(node: Json | undefined): string[] | undefined {
  const v = constantValue(node);
  if (typeof v === 'string') return [v];
  if (isObj(node) && node.class === 'FUNCTION' && (node.function_name === 'list_value' || node.function_name === 'list_pack')) {
    const out: string[] = [];
    for (const c of Array.isArray(node.children) ? node.children : []) {
      const s = constantValue(c);
      if (typeof s !== 'string') return undefined;
      out.push(s);
    }
    return out;
  }
  return undefined;
}

/** True for absolute local paths that stay inside one of the roots once `..` is resolved. */
export function insideRoots(p: string, roots: readonly string[]): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(p) || !path.isAbsolute(p)) return false;
  const resolved = path.resolve(p);
  return roots.some((root) => resolved === root || resolved.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

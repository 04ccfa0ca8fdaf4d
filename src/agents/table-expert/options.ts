/**
 * The Table Expert's `options:` block (AgentConfig.options), validated here because the config
 * schema treats options as free-form. Problems are reported like every other config problem:
 * one line each, led by the full key path (`agents[2].options.datasets[0].path`).
 */
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, type ConfigProblem } from '../../config/errors.js';
import { configErrorMap, formatPath, problemsFromZod, sortByFileOrder } from '../../config/errors.js';
import { bool, byteSize, duration, integer, nonEmptyString } from '../../config/primitives.js';
import type { SemanticSpec } from './planner/semantic-spec.js';

/** Table and dataset names become unquoted SQL identifiers the planner and the LLM can write. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const identifier = z.string().regex(IDENTIFIER, { message: 'must be a lowercase SQL identifier (letters, digits, _; at most 63)' });

const postgresUrl = nonEmptyString.refine((v) => /^postgres(ql)?:\/\/./.test(v), { message: 'must be a postgres:// or postgresql:// URL' });
const httpUrl = nonEmptyString
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http:// or https:// URL, e.g. https://api.openai.com/v1' },
  )
  .transform((v) => v.replace(/\/+$/, ''));

export const FILE_FORMATS = ['csv', 'parquet', 'json'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

const datasetSchema = z
  .object({
    name: identifier,
    /** which usecase the data belongs to: `mcp:tools:<usecase>` tokens see only their usecase */
    usecase: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be lowercase letters, digits, - and _' })
      .default('default'),
    description: nonEmptyString.optional(),
    /** a file, a glob (`events/*.parquet`: one table) or a folder (one table per file) */
    path: nonEmptyString.optional(),
    format: z.enum(FILE_FORMATS).optional(),
    sqlite: z
      .object({ file: nonEmptyString, tables: z.array(identifier).min(1).optional() })
      .strict()
      .optional(),
    /** what the data's owners say about it (planner/semantic.ts); checked against the schema on first use */
    semantic: z
      .object({
        columns: z.record(z.string().min(1), z.object({ description: nonEmptyString.optional(), synonyms: z.array(nonEmptyString).optional(), unit: nonEmptyString.optional() }).strict()).optional(),
        values: z.record(z.string().min(1), nonEmptyString).optional(),
        verified: z.array(z.object({ question: nonEmptyString, sql: nonEmptyString }).strict()).optional(),
        timeColumn: nonEmptyString.optional(),
        measures: z.record(z.string().min(1), z.object({ sql: nonEmptyString, description: nonEmptyString.optional() }).strict()).optional(),
      })
      .strict()
      .optional(),
    postgres: z
      .object({
        url: postgresUrl,
        schema: nonEmptyString.default('public'),
        table: nonEmptyString.optional(),
        tables: z.array(nonEmptyString).min(1).optional(),
        /** rows copied per table at most; the copy is a snapshot refreshed after refreshMs */
        maxRows: integer(1).default(1_000_000),
        refreshMs: duration(1000).default(300_000),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const sources = [d.path, d.sqlite, d.postgres].filter((s) => s !== undefined).length;
    if (sources !== 1) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [], message: 'must have exactly one of path, sqlite, postgres' });
    }
    if (d.format && !d.path) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['format'], message: 'applies only with path' });
    if (d.postgres?.table && d.postgres.tables) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['postgres'], message: 'give table or tables, not both' });
    }
    if (d.postgres && !d.postgres.table && !d.postgres.tables) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['postgres', 'tables'], message: 'is required (the tables to read)' });
    }
  });

const llmSchema = z
  .object({
    /** OpenAI-compatible base URL: https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), … */
    baseUrl: httpUrl,
    model: nonEmptyString,
    apiKey: z.string().optional(),
    /** `authorization` sends `Bearer <key>`; Azure OpenAI wants `api-key` */
    apiKeyHeader: z.enum(['authorization', 'api-key']).default('authorization'),
    /** appended as `?api-version=` (Azure OpenAI) */
    apiVersion: nonEmptyString.optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** repairs after a rejected or failing statement, per question */
    maxRepairs: integer(0, 10).default(2),
    timeoutMs: duration(100).default(60_000),
    stream: bool.default(true),
    temperature: z.number().min(0).max(2).default(0),
  })
  .strict();

const limitsSchema = z
  .object({
    timeoutMs: duration(10).default(10_000),
    maxRows: integer(1, 100_000).default(1_000),
    memoryLimit: byteSize(16 * 1024 * 1024).default(512 * 1024 * 1024),
    threads: integer(1, 64).default(2),
    /** queries running at once; each holds a libuv thread while it runs */
    maxConcurrentQueries: integer(1, 16).default(3),
    maxSqlChars: integer(10, 1_000_000).default(20_000),
    /** longer cell strings are cut in results */
    maxCellChars: integer(16, 1_000_000).default(2_000),
  })
  .strict();

export const tableExpertOptionsSchema = z
  .object({
    datasets: z.array(datasetSchema).default([]),
    /** generate and serve the retail sample when no datasets are given (default), or always/never */
    sample: bool.optional(),
    limits: limitsSchema.default({}),
    llm: llmSchema.optional(),
    /** extra words for the planner: `{ turnover: 'order_lines.amount', client: 'customers' }` */
    /** `table`, `table.column` or a column name as the data spells it (`superstore.Order Date`); checked against the schema on first use */
    synonyms: z.record(z.string().min(1), nonEmptyString).default({}),
  })
  .strict()
  .superRefine((o, ctx) => {
    const seen = new Map<string, number>();
    o.datasets.forEach((d, i) => {
      const prev = seen.get(d.name);
      if (prev !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['datasets', i, 'name'], message: `duplicates datasets[${prev}].name` });
      seen.set(d.name, i);
    });
  });

export type TableExpertOptionsInput = z.input<typeof tableExpertOptionsSchema>;
type Parsed = z.output<typeof tableExpertOptionsSchema>;
export type LlmOptions = NonNullable<Parsed['llm']>;
export type EngineLimits = Parsed['limits'];

export type DatasetSource =
  | { kind: 'files'; path: string; format?: FileFormat }
  | { kind: 'sqlite'; file: string; tables?: string[] }
  | { kind: 'postgres'; url: string; schema: string; tables: string[]; maxRows: number; refreshMs: number };

export interface DatasetSpec {
  name: string;
  usecase: string;
  description?: string;
  semantic?: SemanticSpec;
  source: DatasetSource;
}

export interface TableExpertOptions {
  datasets: DatasetSpec[];
  /** whether the generated retail sample is served */
  sample: boolean;
  limits: EngineLimits;
  llm?: LlmOptions;
  synonyms: Record<string, string>;
}

/**
 * Validates `options` of the agent at `agents[index]`; relative paths start at `baseDir` (the
 * config file's directory). Throws ConfigError naming each bad key.
 */
export function parseTableExpertOptions(options: unknown, where: { index: number; baseDir: string }): TableExpertOptions {
  const prefix: Array<string | number> = ['agents', where.index, 'options'];
  const parsed = tableExpertOptionsSchema.safeParse(options ?? {}, { errorMap: configErrorMap });
  if (!parsed.success) {
    const problems = problemsFromZod(parsed.error, options, (p) => knownKeys(p)).map((p): ConfigProblem => ({ path: formatPath([...prefix, ...p.segments]), message: p.message }));
    throw new ConfigError(sortByFileOrder(problems, { agents: { [where.index]: { options } } }));
  }
  const o = parsed.data;
  const datasets = o.datasets.map((d): DatasetSpec => {
    const base = { name: d.name, usecase: d.usecase, ...(d.description ? { description: d.description } : {}), ...(d.semantic ? { semantic: d.semantic as SemanticSpec } : {}) };
    if (d.sqlite) return { ...base, source: { kind: 'sqlite', file: path.resolve(where.baseDir, d.sqlite.file), ...(d.sqlite.tables ? { tables: d.sqlite.tables } : {}) } };
    if (d.postgres) {
      const pgOpts = d.postgres;
      return {
        ...base,
        source: { kind: 'postgres', url: pgOpts.url, schema: pgOpts.schema, tables: pgOpts.tables ?? [pgOpts.table!], maxRows: pgOpts.maxRows, refreshMs: pgOpts.refreshMs },
      };
    }
    return { ...base, source: { kind: 'files', path: path.resolve(where.baseDir, d.path!), ...(d.format ? { format: d.format } : {}) } };
  });
  return {
    datasets,
    sample: o.sample ?? datasets.length === 0,
    limits: o.limits,
    ...(o.llm ? { llm: o.llm } : {}),
    synonyms: Object.fromEntries(Object.entries(o.synonyms).map(([k, v]) => [k.toLowerCase(), v])),
  };
}

function knownKeys(p: readonly (string | number)[]): string[] {
  const keys = p.filter((s): s is string => typeof s === 'string');
  const last = keys[keys.length - 1];
  if (keys.length === 0) return ['datasets', 'sample', 'limits', 'llm', 'synonyms'];
  if (last === 'datasets') return ['name', 'usecase', 'description', 'path', 'format', 'sqlite', 'postgres', 'semantic'];
  if (last === 'semantic') return ['columns', 'values', 'verified', 'timeColumn', 'measures'];
  if (last === 'sqlite') return ['file', 'tables'];
  if (last === 'postgres') return ['url', 'schema', 'table', 'tables', 'maxRows', 'refreshMs'];
  if (last === 'llm') return ['baseUrl', 'model', 'apiKey', 'apiKeyHeader', 'apiVersion', 'headers', 'maxRepairs', 'timeoutMs', 'stream', 'temperature'];
  if (last === 'limits') return ['timeoutMs', 'maxRows', 'memoryLimit', 'threads', 'maxConcurrentQueries', 'maxSqlChars', 'maxCellChars'];
  return [];
}

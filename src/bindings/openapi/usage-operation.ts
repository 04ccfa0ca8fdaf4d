/**
 * `GET /api/v1/usage` in the OpenAPI document: its parameters come from the same lists the route
 * validates against (src/bindings/management/usage-params.ts), so the two cannot drift apart.
 */
import { DEFAULT_LIMIT, DEFAULT_SINCE, MAX_LIMIT, USAGE_FORMATS } from '../management/usage-params.js';
import { USAGE_DIMENSIONS, USAGE_TIME_BUCKETS } from '../../store/usage-record.js';
import { error, ref } from './builders.js';

const query = (name: string, description: string, schema: Record<string, unknown>, explode = false) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  ...(explode ? { style: 'form', explode: true } : {}),
});
const instant = { type: 'string', examples: ['7d', '12h', '2026-01-01', '2026-01-01T12:00:00Z'] };

export function usageOperation(): Record<string, unknown> {
  return {
    tags: ['management'],
    summary: 'Usage grouped by any dimension and time bucket: calls, errors, latency and duration percentiles, tokens, cost, bytes',
    description:
      'An administrator (scope `admin`) reads everyone\u2019s usage; a caller with `usage:read` only its own (the answer is limited to its subject, ' +
      'and a `subject` filter naming anyone else is refused with 403). The format is chosen by `format`, else by `Accept` ' +
      '(`text/csv`, `application/x-ndjson`), else JSON. docs/usage.md describes the metrics.',
    security: [{ bearer: ['usage:read'] }, { apiKey: ['usage:read'] }, { bearer: ['admin'] }, { apiKey: ['admin'] }],
    parameters: [
      query('by', `Dimensions to group by, comma-separated, in order: ${USAGE_DIMENSIONS.join(', ')}`, { type: 'string', examples: ['agent,tool'] }),
      query('bucket', 'A time bucket (UTC) as an extra grouping', { enum: [...USAGE_TIME_BUCKETS] }),
      query('since', `Start (inclusive): a duration back from now or an ISO 8601 date-time; default ${DEFAULT_SINCE}`, instant),
      query('until', 'End (exclusive): a duration back from now or an ISO 8601 date-time; default now', instant),
      query('limit', `At most this many groups, largest first (default ${DEFAULT_LIMIT})`, { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
      query('format', 'The answer\u2019s format (overrides Accept)', { enum: [...USAGE_FORMATS] }),
      ...USAGE_DIMENSIONS.map((d) => query(d, `Only records whose ${d} is one of these (repeatable, or comma-separated; an empty item matches records without one)`, { type: 'array', items: { type: 'string' } }, true)),
    ],
    responses: {
      '200': {
        description: 'The groups (Cache-Control: no-store)',
        content: {
          'application/json': { schema: ref('UsageAnswer') },
          'text/csv': { schema: { type: 'string', description: 'RFC 4180, a header row: the dimensions, bucket_start, then the metrics' } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One UsageGroup per line' } },
        },
      },
      '400': error('A malformed parameter (the error names it and the valid values)'),
      '401': error('No valid credential (with a `WWW-Authenticate` challenge)'),
      '403': error('Neither usage:read nor admin, or a subject filter naming another subject without admin'),
    },
  };
}

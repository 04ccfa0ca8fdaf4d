/**
 * The `usage`, `quotas` and `audit` sections of agentport.yaml and a skill's `cost` (issue 13;
 * docs/usage.md). Kept apart from schema.ts so the governance settings read as one piece.
 */
import { z } from 'zod';
import { bool, duration, integer, nonEmptyString, uri } from './primitives.js';

const nonNegative = z.number({ invalid_type_error: 'must be a number' }).min(0, 'must be 0 or more');

/** `agents[].skills[id].cost`: cost units per call and per token. */
export const skillCostSchema = z
  .object({
    perCall: nonNegative.optional(),
    perPromptToken: nonNegative.optional(),
    perCompletionToken: nonNegative.optional(),
    /** a prompt token read from the provider's prompt cache; default perPromptToken */
    perCachedPromptToken: nonNegative.optional(),
    /** a prompt token written to the provider's prompt cache (Anthropic); default perPromptToken */
    perCacheWriteToken: nonNegative.optional(),
  })
  .strict();

export const usageSchema = z
  .object({
    /** records off: nothing is written (the benchmark's baseline) */
    enabled: bool.default(true),
    /** raw rows and rollups older than this are deleted */
    retentionDays: integer(1, 36_500, ' days').default(90),
    /** call records waiting for their batch write; beyond it new ones are dropped (and counted), except those carrying a cost or tokens */
    queueLimit: integer(100).default(10_000),
    /** how often the call queue is written */
    flushIntervalMs: duration(10).default(1_000),
  })
  .strict();

export const QUOTA_DIMENSIONS = ['subject', 'client', 'key', 'usecase', 'agent', 'skill'] as const;
const quotaDimension = z.enum(QUOTA_DIMENSIONS);

export const quotaSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be lowercase letters, digits, - and _' }),
    /** each distinct value of these dimensions gets its own allowance (empty: one allowance shared by all matching calls) */
    per: z.array(quotaDimension).default([]),
    /** only calls whose dimensions have these values count */
    match: z.record(quotaDimension, nonEmptyString).default({}),
    /** N calls per window */
    requests: z
      .object({ limit: integer(1), window: duration(1000) })
      .strict()
      .optional(),
    /** tasks running at once */
    concurrentTasks: integer(1).optional(),
    /** prompt + completion tokens per calendar month (UTC) */
    monthlyTokens: integer(1).optional(),
    /** cost units per calendar month (UTC) */
    monthlyCost: nonNegative.optional(),
  })
  .strict()
  .refine((q) => q.requests !== undefined || q.concurrentTasks !== undefined || q.monthlyTokens !== undefined || q.monthlyCost !== undefined, {
    message: 'a quota sets at least one of requests, concurrentTasks, monthlyTokens, monthlyCost',
  });

/** The `quotas:` list: ids are unique (the management API and refusals name a quota by id). */
export const quotasSchema = z
  .array(quotaSchema)
  .default([])
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    for (const [i, q] of list.entries()) {
      if (seen.has(q.id)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'id'], message: `quota id '${q.id}' is used twice` });
      seen.add(q.id);
    }
  });

export const auditSchema = z
  .object({
    enabled: bool.default(true),
    /** every record is also POSTed here (through the outbound SSRF policy), for a SIEM */
    webhook: z
      .object({
        url: uri,
        headers: z.record(z.string(), z.string()).default({}),
      })
      .strict()
      .optional(),
  })
  .strict();

export type UsageConfig = z.output<typeof usageSchema>;
export type QuotaConfig = z.output<typeof quotaSchema>;
export type QuotaDimension = (typeof QUOTA_DIMENSIONS)[number];
export type AuditConfig = z.output<typeof auditSchema>;
export type SkillCostConfig = z.output<typeof skillCostSchema>;

/**
 * `agents[].llm`: an agent declared in configuration — a model with instructions whose tools are
 * other hosted agents (src/agents/llm). Validated here like every other key, so a wrong provider,
 * URL or budget is a configuration error naming `agents[i].llm.<key>`.
 */
import { z } from 'zod';
import { AGENT_ID_PATTERN, bool, duration, httpBaseUrl, integer, nonEmptyString } from './primitives.js';
import { skillCostSchema } from './usage-schema.js';

export const LLM_PROVIDERS = ['openai', 'anthropic'] as const;

/** A skill of the card, when the configuration names them (absent: one skill from the instructions). */
const llmSkillSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'letters, digits and _ . - only (at most 64)' }),
    name: nonEmptyString,
    description: nonEmptyString,
    tags: z.array(nonEmptyString).default([]),
    examples: z.array(nonEmptyString).optional(),
  })
  .strict();

export const llmSchema = z
  .object({
    /** `openai`: any OpenAI-compatible Chat Completions endpoint; `anthropic`: the Messages API */
    provider: z.enum(LLM_PROVIDERS),
    /** default: https://api.openai.com/v1 or https://api.anthropic.com/v1 */
    baseUrl: httpBaseUrl.optional(),
    model: nonEmptyString,
    /** use `${ENV_VAR}`: the key stays out of the file; it is never logged */
    apiKey: z.string().optional(),
    /** extra request headers (Azure's api-key, a gateway's tenant header) */
    headers: z.record(nonEmptyString, z.string()).default({}),
    instructions: nonEmptyString,
    /** hosted agents by id: their skills (an MCP-server agent: its tools) become the model's tools */
    tools: z.array(z.string().regex(AGENT_ID_PATTERN, { message: 'must be the id of an agent in agents[]' })).default([]),
    /** model calls per run before the task fails */
    maxSteps: integer(1, 100).default(8),
    /** output tokens per model call (Anthropic requires one) */
    maxOutputTokens: integer(1, 1_000_000).default(4096),
    /** prompt + completion tokens one task may spend over all its model calls; absent: no budget */
    tokenBudget: integer(1).optional(),
    /** one run of the loop (all its model and tool calls); the task fails after it */
    timeoutMs: duration(1).default(300_000),
    /** one model call, from request to its last streamed byte */
    callTimeoutMs: duration(1).default(120_000),
    /** a tool result longer than this is cut before it reaches the model */
    maxToolResultChars: integer(256, 1_000_000).default(16_000),
    /** retries of a 429 or 5xx answer (Retry-After honoured, else exponential backoff) */
    maxRetries: integer(0, 10).default(3),
    temperature: z.number().min(0).max(2).optional(),
    /** offer the model an `ask_user` tool: its question pauses the task in INPUT_REQUIRED */
    askUser: bool.default(true),
    skills: z.array(llmSkillSchema).min(1).optional(),
    /** cost units per call and per token, for usage records (as agents[].skills[id].cost) */
    price: skillCostSchema.optional(),
  })
  .strict();

export type LlmEntry = z.output<typeof llmSchema>;

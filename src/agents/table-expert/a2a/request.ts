/**
 * Which skill an A2A message asks for. A DataPart `{ "skill": "...", ... }` names it explicitly
 * (the form for programs); plain text is a question for `ask`, a statement starting with SELECT
 * or WITH … AS ( is a `query`, and `/describe`, `/search`, `/fetch`, `/sql` are shortcuts for
 * people typing into a chat client. See docs/table-expert.md.
 */
import { z } from 'zod';
import type { Message } from '../../../protocol/a2a/types.js';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const skillRequestSchema = z.discriminatedUnion('skill', [
  z.object({ skill: z.literal('describe'), table: z.string().trim().min(1).max(200).optional() }).strict(),
  z.object({ skill: z.literal('search'), query: text(1000), limit: z.number().int().min(1).max(100).optional() }).strict(),
  z.object({ skill: z.literal('fetch'), id: text(2000) }).strict(),
  z.object({ skill: z.literal('query'), sql: text(1_000_000), maxRows: z.number().int().min(1).optional() }).strict(),
  z.object({ skill: z.literal('ask'), question: text(4000), mode: z.enum(['auto', 'planner', 'llm']).optional() }).strict(),
]);

export type SkillRequest = z.output<typeof skillRequestSchema>;
export const SKILLS = ['describe', 'search', 'fetch', 'query', 'ask'] as const;

export type ParsedRequest = { ok: true; request: SkillRequest } | { ok: false; reason: string };

const SQL_START = /^\s*(select\s|with\s+(recursive\s+)?("[^"]+"|\w+)\s*(\([^)]*\))?\s+as\s*(not\s+)?(materialized\s+)?\()/i;

export function parseRequest(message: Message): ParsedRequest {
  for (const part of message.parts) {
    if (part.data !== undefined && part.data !== null && typeof part.data === 'object' && !Array.isArray(part.data) && 'skill' in part.data) {
      const r = skillRequestSchema.safeParse(part.data);
      if (r.success) return { ok: true, request: r.data };
      const issue = r.error.issues[0]!;
      const where = issue.path.length ? `data.${issue.path.join('.')}` : 'data';
      const known = issue.code === 'invalid_union_discriminator' ? ` (skills: ${SKILLS.join(', ')})` : '';
      return { ok: false, reason: `${where}: ${issue.message}${known}` };
    }
  }
  const body = message.parts
    .filter((p) => typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n')
    .trim();
  if (!body) return { ok: false, reason: `send a question as text, or a data part {"skill": ${SKILLS.map((s) => `"${s}"`).join(' | ')}, …}` };
  const slash = /^\/(describe|search|fetch|sql|query|ask)\b\s*([\s\S]*)$/i.exec(body);
  if (slash) {
    const cmd = slash[1]!.toLowerCase();
    const arg = slash[2]!.trim();
    const candidate =
      cmd === 'describe'
        ? { skill: 'describe', ...(arg ? { table: arg } : {}) }
        : cmd === 'search'
          ? { skill: 'search', query: arg }
          : cmd === 'fetch'
            ? { skill: 'fetch', id: arg }
            : cmd === 'ask'
              ? { skill: 'ask', question: arg }
              : { skill: 'query', sql: arg };
    const r = skillRequestSchema.safeParse(candidate);
    return r.success ? { ok: true, request: r.data } : { ok: false, reason: `/${cmd} needs an argument` };
  }
  if (SQL_START.test(body)) return { ok: true, request: { skill: 'query', sql: body } };
  return { ok: true, request: { skill: 'ask', question: body.slice(0, 4000) } };
}

/**
 * A quota and the calls it applies to (issue 13; docs/usage.md "Quotas and rate limits"). A call
 * has dimensions (who calls, with which client and key, in which usecase, to which agent and
 * skill); a quota applies when every `match` dimension has its value and every `per` dimension is
 * known, and each distinct value of its `per` dimensions has its own allowance (a bucket).
 */
import type { QuotaConfig, QuotaDimension } from '../../config/usage-schema.js';
import type { CallContext } from '../a2a-handler.js';
import type { Principal } from '../authz/principal.js';

export type { QuotaDimension };

export interface Quota extends QuotaConfig {
  /** 'config': from agentport.yaml, read-only; 'api': from the management API (the database) */
  source: 'config' | 'api';
}

export type CallDimensions = Partial<Record<QuotaDimension, string>>;

/** A principal's own dimensions (what the usage API reports quotas against). */
export function principalDimensions(p: Principal): CallDimensions {
  const d: CallDimensions = { subject: p.subject };
  if (p.clientId !== undefined) d.client = p.clientId;
  if (p.keyId !== undefined) d.key = p.keyId;
  if (p.usecase !== undefined) d.usecase = p.usecase;
  return d;
}

export function callDimensions(ctx: CallContext, skill: string | undefined): CallDimensions {
  const d = principalDimensions(ctx.principal);
  d.agent = ctx.agentId;
  if (skill !== undefined) d.skill = skill;
  return d;
}

export function applies(q: QuotaConfig, dims: CallDimensions): boolean {
  for (const [dim, value] of Object.entries(q.match) as Array<[QuotaDimension, string]>) if (dims[dim] !== value) return false;
  for (const dim of q.per) if (dims[dim] === undefined) return false;
  return true;
}

/** The dimensions that name a quota's bucket: its `match` and its `per` values (what MonthlySpend is asked about). */
export function bucketDimensions(q: QuotaConfig, dims: CallDimensions): CallDimensions {
  const out: CallDimensions = { ...q.match };
  for (const dim of q.per) out[dim] = dims[dim]!;
  return out;
}

/** A key for one bucket of a quota: `<id>/<per values>`; values are URI-encoded so '/' cannot forge another bucket. */
export function bucketKey(q: QuotaConfig, dims: CallDimensions): string {
  return q.per.length === 0 ? `${q.id}/*` : `${q.id}/${q.per.map((d) => encodeURIComponent(dims[d]!)).join('/')}`;
}

/** The first instant (epoch ms) of the UTC calendar month of `now`, and of the next one. */
export function monthBounds(now: number): { start: number; next: number } {
  const d = new Date(now);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), next: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

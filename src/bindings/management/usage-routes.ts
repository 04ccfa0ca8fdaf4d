/**
 * `GET /api/v1/usage`: usage records grouped and filtered (issue 13, docs/usage.md "Usage
 * analytics"), as JSON, CSV or NDJSON. An administrator reads everyone's usage; a holder of
 * `usage:read` only its own (src/core/authz/usage-visibility.ts). The JSON answer also says what
 * remains of each of the caller's quotas, when the server has quotas.
 */
import type { FastifyPluginCallback } from 'fastify';
import { checkSubjectFilter, usageVisibility } from '../../core/authz/usage-visibility.js';
import type { Principal } from '../../core/authz/principal.js';
import { SCOPES } from '../../core/authz/scopes.js';
import type { UsageStore } from '../../store/usage-store.js';
import { requireCaller, sendDenial, sendError, type AdminGuardDeps } from './admin-guard.js';
import { csvAnswer, jsonAnswer, ndjsonAnswer, type QuotaStanding } from './usage-export.js';
import { parseUsageParams, type UsageRequest } from './usage-params.js';

export interface UsageRouteDeps extends AdminGuardDeps {
  usage: Pick<UsageStore, 'query'>;
  /** what remains of each quota that applies to the principal; absent when the server has no quotas */
  quotaRemaining?: (principal: Principal) => Promise<QuotaStanding[]>;
  /** the clock relative times (`since=7d`) count back from; default Date.now */
  now?: () => number;
}

/** A Fastify plugin: `app.register(usageRoutes(deps))`. */
export function usageRoutes(d: UsageRouteDeps): FastifyPluginCallback {
  const now = d.now ?? Date.now;
  return (app, _opts, done) => {
    app.get('/api/v1/usage', async (req, reply) => {
      // The challenge names usage:read, the least scope that answers (admin reads more).
      const principal = await requireCaller(d, req, reply, SCOPES.usageRead);
      if (!principal) return reply;
      let visibility: ReturnType<typeof usageVisibility>;
      try {
        visibility = usageVisibility(d.policy, principal);
      } catch (e) {
        return sendDenial(d, reply, e);
      }
      let asked: UsageRequest;
      try {
        const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
        asked = parseUsageParams(new URLSearchParams(search), req.headers.accept, now());
        checkSubjectFilter(visibility, asked.query.filters.subject);
      } catch (e) {
        return sendDenial(d, reply, e);
      }
      const { format } = asked;
      const query = visibility.subject === undefined ? asked.query : { ...asked.query, filters: { ...asked.query.filters, subject: [visibility.subject] } };
      // Quotas live elsewhere (Redis in distributed mode): their outage leaves them out of the
      // answer, logged, rather than taking the usage numbers down with them.
      const quotasAsked =
        format === 'json' && d.quotaRemaining
          ? d.quotaRemaining(principal).catch((e: unknown) => {
              req.log.warn({ err: e }, 'quota standings unavailable; usage answered without them');
              return undefined;
            })
          : undefined;
      let groups: Awaited<ReturnType<UsageStore['query']>>;
      try {
        groups = await d.usage.query(query);
      } catch (e) {
        req.log.error({ err: e }, 'usage query failed');
        return sendError(reply, e);
      }
      const quotas = await quotasAsked;
      reply.headers({ 'Cache-Control': 'no-store', Vary: 'Accept' });
      if (format === 'csv') {
        reply.header('Content-Disposition', 'attachment; filename="usage.csv"');
        return reply.type('text/csv; charset=utf-8; header=present').send(csvAnswer(query, groups));
      }
      if (format === 'ndjson') return reply.type('application/x-ndjson; charset=utf-8').send(ndjsonAnswer(groups));
      const answer = jsonAnswer(query, groups, { ...(visibility.subject === undefined ? {} : { subject: visibility.subject }), ...(quotas ? { quotas } : {}) });
      return reply.type('application/json; charset=utf-8').send(answer);
    });
    done();
  };
}

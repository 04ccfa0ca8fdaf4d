/**
 * `/healthz` (the process can go on serving: it answers, and nothing that only a restart mends has
 * failed) and `/readyz` (each backing service, from src/server/readiness.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/** readiness of each backing service: 'ok' or why not in fixed words (no path, host or URL), and the figures behind it */
export type ReadinessCheck = () => Promise<{ checks: Record<string, string>; measures?: object }>;

/** why this process must restart to serve again, in fixed words; undefined while it need not */
export type LivenessCheck = () => string | undefined;

export function addHealthRoutes<Log extends FastifyBaseLogger>(app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Log>, ready: ReadinessCheck, alive: LivenessCheck = () => undefined): void {
  app.get('/healthz', async (_req, reply) => {
    const reason = alive();
    reply.header('Cache-Control', 'no-store');
    return reason === undefined ? { status: 'ok' } : reply.code(503).send({ status: 'restart needed', reason });
  });
  app.get('/readyz', async (_req, reply) => {
    const { checks, measures } = await ready().catch(() => ({ checks: { server: 'readiness check failed' }, measures: undefined }));
    const ok = Object.values(checks).every((v) => v === 'ok');
    reply.header('Cache-Control', 'no-store');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks, ...(measures ? { measures } : {}) });
  });
}

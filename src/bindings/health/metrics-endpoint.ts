/**
 * Where Prometheus reads /metrics (docs/observability.md, docs/decisions/0017-metrics.md): on the
 * main listener for an admin credential or the dedicated `metrics.token`, or on a listener of its
 * own (`metrics.listen`, meant for loopback or a private interface) that asks for nothing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { createHttpListener } from '../../edge/http-listener.js';
import type { Metrics } from '../../observability/metrics/index.js';
import { A2A_ERRORS } from '../../protocol/a2a/errors.js';
import { requireAdmin, type AdminGuardDeps } from '../management/admin-guard.js';

/** A2A error reason → its HTTP status (the first kind with that reason). */
const HTTP_OF_REASON = new Map<string, number>();
for (const e of Object.values(A2A_ERRORS)) if (!HTTP_OF_REASON.has(e.reason)) HTTP_OF_REASON.set(e.reason, e.http);

/** The HTTP status of an A2A error reason, for the request counter's status label. */
export function httpStatusOfReason(reason: string): number | undefined {
  return HTTP_OF_REASON.get(reason);
}

/** Compared as digests: equal lengths for timingSafeEqual, and no timing tells how much of a guess matched. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether the Authorization header carries `token` as a bearer token (constant time). */
export function hasMetricsToken(authorization: string | undefined, token: Buffer): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), token);
}

async function sendMetrics(metrics: Metrics, reply: FastifyReply): Promise<FastifyReply> {
  const text = await metrics.scrape();
  return reply.code(200).headers({ 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).send(text);
}

/** GET /metrics on the main listener: the metrics token, else an admin credential. */
export function metricsRoute(metrics: Metrics, o: { token?: string; guard: AdminGuardDeps }): FastifyPluginAsync {
  const token = o.token === undefined ? undefined : digest(o.token);
  return async (app) => {
    app.get('/metrics', async (req, reply) => {
      if (token && hasMetricsToken(req.headers.authorization, token)) return sendMetrics(metrics, reply);
      if (!(await requireAdmin(o.guard, req, reply))) return reply;
      return sendMetrics(metrics, reply);
    });
  };
}

/** The separate listener of `metrics.listen`: GET /metrics and nothing else, without authentication. */
export async function listenForMetrics(metrics: Metrics, address: string): Promise<{ server: Server; port: number }> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(at + 1));
  const server = createHttpListener({}, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => (server.off('error', reject), resolve()));
  });
  const bound = server.address();
  return { server, port: typeof bound === 'object' && bound ? bound.port : port };
}

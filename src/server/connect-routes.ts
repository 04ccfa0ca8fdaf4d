/**
 * The browser's side of connecting an account at a remote (`agents[].mcp.auth: oauth`, ADR 0035):
 * `/connect/start` sends the browser to the remote's authorization server, `/connect/callback`
 * takes the code back and stores the user's tokens; the task that asked waits for them and goes
 * on by itself. Pages are plain HTML with no script; errors say what to do, never why in detail.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { CONNECT_CALLBACK_PATH, CONNECT_START_PATH, ConnectError, type RemoteConnections } from '../auth/remote-oauth/remote-connections.js';

export interface ConnectRoutesDeps {
  connections: RemoteConnections;
  log: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
  /** a connection was made (audit) */
  onConnected?: (e: { subject: string; remote: string; remoteSubject?: string }) => void;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-frame-options': 'DENY',
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui;max-width:36rem;margin:4rem auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
    );
}

export function connectRoutes(d: ConnectRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { ticket?: string } }>(CONNECT_START_PATH, async (req, reply) => {
      try {
        const { location } = await d.connections.begin(req.query.ticket);
        return reply.code(302).headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).send();
      } catch (err) {
        if (err instanceof ConnectError) return page(reply, err.status, 'Cannot connect', err.message);
        d.log.warn({ err: (err as Error).message }, 'connect: start failed');
        return page(reply, 500, 'Cannot connect', 'Something went wrong; try the connect link again.');
      }
    });
    app.get(CONNECT_CALLBACK_PATH, async (req, reply) => {
      const query = new URL(req.url, 'http://callback').searchParams;
      try {
        const done = await d.connections.complete(query);
        d.log.info({ subject: done.subject, remote: done.remote, remoteSubject: done.remoteSubject }, 'connect: account connected');
        d.onConnected?.(done);
        return page(reply, 200, 'Connected', `Your account is connected to ${done.remote}${done.remoteSubject ? ` as ${done.remoteSubject}` : ''}. You can close this window: the waiting task goes on by itself.`);
      } catch (err) {
        if (err instanceof ConnectError) return page(reply, err.status, 'Not connected', err.message);
        d.log.warn({ err: (err as Error).message }, 'connect: callback failed');
        return page(reply, 500, 'Not connected', 'Something went wrong; start again from the connect link.');
      }
    });
  };
}

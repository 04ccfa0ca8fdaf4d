/**
 * The browser's side of connecting an account at a remote (`agents[].mcp.auth: oauth`, ADR 0035):
 * `/connect/start` sends the browser to the remote's authorization server, `/connect/callback`
 * takes the code back and stores the user's tokens; the task that asked waits for them and goes
 * on by itself. Pages are plain HTML with no script; errors say what to do, never why in detail.
 *
 * A connect link binds the remote account of whoever completes it to the Agentport user it names,
 * so it is only good in that user's own browser (issue 27): `/connect/start` needs the console
 * session of the named user (none: the browser signs in at the console first, which sends it back
 * to the link; another user's: refused and audited, nothing bound), and sets a cookie whose digest
 * the sealed state carries, so the callback only completes in the browser that started.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { CONNECT_CALLBACK_PATH, CONNECT_START_PATH, ConnectError, RemoteConnections } from '../../auth/remote-oauth/remote-connections.js';
import { cookieValue, type ConsoleSessions } from '../../auth/sessions/console-sessions.js';

/** The browser binding of a started connect (SameSite=Lax: the remote's redirect back is a cross-site navigation). */
export const CONNECT_COOKIE = 'ap_connect';
/** how long a started connect may take at the remote (s); the sealed state expires by itself too */
const CONNECT_COOKIE_SECONDS = 600;

export interface ConnectRoutesDeps {
  connections: RemoteConnections;
  log: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
  /** a connection was made (audit) */
  onConnected?: (e: { subject: string; remote: string; remoteSubject?: string }) => void;
  /** the browser signed in as another user opened someone's connect link (audit) */
  onRefused?: (e: { actor: string; subject: string; remote: string }) => void;
  /** the console's sessions: who the browser is signed in as; absent: no one can be, every link is refused */
  sessions?: Pick<ConsoleSessions, 'fromCookie'>;
  /** where a browser with no session signs in, coming back to `returnTo` (the connect link) afterwards */
  signInUrl?: (returnTo: string) => string;
  /** Agentport's public base URL (cookie path, the link to come back to) */
  publicUrl: () => string;
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

function cookieAttributes(publicUrl: string): string {
  const url = new URL(publicUrl);
  const base = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  return `Path=${base}/connect/; HttpOnly; SameSite=Lax${url.protocol === 'https:' ? '; Secure' : ''}`;
}

export function connectRoutes(d: ConnectRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { ticket?: string } }>(CONNECT_START_PATH, async (req, reply) => {
      try {
        const ticket = d.connections.openTicket(req.query.ticket);
        const session = await d.sessions?.fromCookie(req.headers);
        if (!session) {
          if (!d.signInUrl) return page(reply, 403, 'Cannot connect', 'Connect links need a signed-in Agentport user, and this server has no sign-in.');
          const returnTo = `${d.publicUrl()}${CONNECT_START_PATH}?ticket=${encodeURIComponent(req.query.ticket ?? '')}`;
          return reply
            .code(303)
            .headers({ location: d.signInUrl(returnTo), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
            .send();
        }
        if (session.username !== ticket.subject) {
          d.log.warn({ actor: session.username, subject: ticket.subject, remote: ticket.remote }, "connect: refused another user's link");
          d.onRefused?.({ actor: session.username, subject: ticket.subject, remote: ticket.remote });
          return page(
            reply,
            403,
            'Not your connect link',
            'This connect link was made for another Agentport user, so nothing was connected. Only the user it names can use it; if someone sent it to you, do not sign in at the remote with it.',
          );
        }
        const binding = RemoteConnections.newBrowserBinding();
        const { location } = await d.connections.begin(req.query.ticket, binding);
        return reply
          .code(302)
          .headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'set-cookie': `${CONNECT_COOKIE}=${binding}; ${cookieAttributes(d.publicUrl())}; Max-Age=${CONNECT_COOKIE_SECONDS}` })
          .send();
      } catch (err) {
        if (err instanceof ConnectError) return page(reply, err.status, 'Cannot connect', err.message);
        d.log.warn({ err: (err as Error).message }, 'connect: start failed');
        return page(reply, 500, 'Cannot connect', 'Something went wrong; try the connect link again.');
      }
    });
    app.get(CONNECT_CALLBACK_PATH, async (req, reply) => {
      const query = new URL(req.url, 'http://callback').searchParams;
      try {
        const done = await d.connections.complete(query, cookieValue(req.headers.cookie, CONNECT_COOKIE));
        reply.header('set-cookie', `${CONNECT_COOKIE}=; ${cookieAttributes(d.publicUrl())}; Max-Age=0`);
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

/**
 * The console's session (src/auth/sessions/console-sessions.ts, docs/console.md):
 * - `GET /console/session`: who is signed in and the session's CSRF token (and `connections` when
 *   the server has agents that reach a remote as the user), or how to sign in
 *   (the OAuth endpoints and the console's client id); with authentication off, that no one needs to;
 * - `POST /console/session` `{accessToken}`: the token the console just received from the code
 *   flow, exchanged for a session cookie (HttpOnly, SameSite=Strict, Secure on https, scoped to
 *   the public URL's path); only a token issued to the console's own client, under a live grant:
 *   a local user's, or an upstream or token sign-in's (the session keeps that grant's scopes);
 * - `POST /console/session/end`: sign-out (every console session of the user), with the CSRF header.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { OAUTH_PATHS, oauthUrl } from '../../auth/oauth-paths.js';
import { OFFERED_SCOPES } from '../../auth/oauth/scopes.js';
import { CONSOLE_CLIENT_ID, CONSOLE_COOKIE, CONSOLE_SESSION_SECONDS, consoleUrlOf, CSRF_HEADER, type ConsoleSessions } from '../../auth/sessions/console-sessions.js';
import type { AuditSink } from '../../core/audit/audit-event.js';
import type { Principal } from '../../core/authz/principal.js';
import { SCOPES } from '../../core/authz/scopes.js';
import { A2AError, toA2AError } from '../../protocol/a2a/errors.js';
import { sendError } from '../management/admin-guard.js';

export interface ConsoleSessionDeps {
  sessions: ConsoleSessions;
  auth: Pick<Authenticator, 'authenticate'>;
  publicUrl: () => string;
  /** the OAuth authorization server is on: the console can sign in */
  signIn: boolean;
  /** authentication is off (`auth.mode: none`, loopback only): everyone is the administrator, nobody signs in */
  open: boolean;
  /** some agent reaches its remote as the user (`auth: oauth`): the console offers the Connections page */
  connections?: boolean;
  audit?: AuditSink;
}

const TOKEN_BODY_LIMIT = 16 * 1024;

export function consoleSessionRoutes(d: ConsoleSessionDeps): FastifyPluginCallback {
  const cookieAttributes = () => {
    const url = new URL(d.publicUrl());
    const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
    return `Path=${path}; HttpOnly; SameSite=Strict${url.protocol === 'https:' ? '; Secure' : ''}`;
  };
  const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');

  return (app, _opts, done) => {
    app.get('/console/session', async (req, reply) => {
      noStore(reply);
      if (d.open) return { signedIn: true, open: true, username: 'anonymous', scopes: [], admin: true, csrf: '' };
      const session = await d.sessions.fromCookie(req.headers);
      if (session) {
        return {
          signedIn: true,
          username: session.username,
          scopes: session.scopes,
          admin: session.scopes.includes(SCOPES.admin),
          ...(d.connections ? { connections: true } : {}),
          csrf: await d.sessions.csrfToken(session),
        };
      }
      if (!d.signIn) return { signedIn: false };
      const publicUrl = d.publicUrl();
      return {
        signedIn: false,
        signIn: {
          authorizeUrl: oauthUrl(publicUrl, OAUTH_PATHS.authorize),
          tokenUrl: oauthUrl(publicUrl, OAUTH_PATHS.token),
          clientId: CONSOLE_CLIENT_ID,
          redirectUri: consoleUrlOf(publicUrl),
          scope: OFFERED_SCOPES.join(' '),
        },
      };
    });

    app.post('/console/session', async (req, reply) => {
      noStore(reply);
      // JSON only: a cross-site form cannot send it without a preflight.
      if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return sendError(reply, new A2AError('InvalidRequest', 'Send {"accessToken": "…"} as application/json'));
      const accessToken = tokenOf(req);
      if (!accessToken) return sendError(reply, new A2AError('InvalidRequest', 'Send {"accessToken": "…"} as application/json'));
      let principal: Principal;
      try {
        principal = await d.auth.authenticate({ authorization: `Bearer ${accessToken}` });
        if (principal.clientId !== CONSOLE_CLIENT_ID) throw new A2AError('Unauthenticated', 'The token was not issued to the console');
      } catch (e) {
        const err = toA2AError(e);
        return sendError(reply, err.kind === 'Unauthenticated' ? err : new A2AError('Unauthenticated', 'The token could not be verified'));
      }
      const now = Date.now();
      let started: Awaited<ReturnType<ConsoleSessions['begin']>>;
      try {
        started = await d.sessions.begin(principal, accessToken, now);
      } catch (e) {
        if (e instanceof A2AError) return sendError(reply, e);
        throw e;
      }
      d.audit?.record({
        action: 'console.session.started',
        outcome: 'success',
        actor: started.username,
        actorClient: CONSOLE_CLIENT_ID,
        target: `user:${started.username}`,
        details: { scopes: [...started.scopes], ...(principal.usecase === undefined ? {} : { usecase: principal.usecase }) },
      });
      // The cookie lasts as long as the session: 8 hours, or less when the grant ends sooner.
      const maxAge = Math.min(CONSOLE_SESSION_SECONDS, Math.max(0, Math.floor((started.expiresAt - now) / 1000)));
      reply.header('Set-Cookie', `${CONSOLE_COOKIE}=${started.token}; ${cookieAttributes()}; Max-Age=${maxAge}`);
      return reply.code(201).send({ signedIn: true, username: started.username });
    });

    app.post('/console/session/end', async (req, reply) => {
      noStore(reply);
      const principal = await d.sessions.authenticate(req.headers).catch(() => undefined);
      const session = principal ? await d.sessions.fromCookie(req.headers) : undefined;
      if (!session) return sendError(reply, new A2AError('Unauthenticated', `Sign-out needs the session cookie and its ${CSRF_HEADER} header`));
      await d.sessions.end(session);
      d.audit?.record({ action: 'console.session.ended', outcome: 'success', actor: session.username, actorClient: CONSOLE_CLIENT_ID, target: `user:${session.username}` });
      reply.header('Set-Cookie', `${CONSOLE_COOKIE}=; ${cookieAttributes()}; Max-Age=0`);
      return reply.code(204).send();
    });
    done();
  };
}

function tokenOf(req: FastifyRequest): string | undefined {
  if (typeof req.body !== 'string' || req.body.length > TOKEN_BODY_LIMIT) return undefined;
  try {
    const body = JSON.parse(req.body) as { accessToken?: unknown };
    return typeof body.accessToken === 'string' && body.accessToken !== '' ? body.accessToken : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `/mcp/config/`: the small admin page of the service Agentport replaces, to register and delete
 * OAuth clients. Sign-in is a local user holding `admin`; the session is server-side
 * (src/auth/sessions/browser-sessions.ts): a random cookie (HttpOnly, SameSite=Strict, path
 * /mcp/config, 30 minutes) naming a stored session that is checked against the user's existence
 * and scopes on every request, and ended everywhere by sign-out or by deleting the user. Every form
 * carries a CSRF token bound to its session (or, for the login form, to a per-browser cookie) and
 * to its action. Plain HTML, no script, works without JavaScript.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../edge/face.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { BrowserSessions, type ActiveSession } from '../sessions/browser-sessions.js';
import { ClientInputError, createClient, deleteClient, listClients, type NewClient } from './client-registry.js';
import { escapeHtml as e } from './html.js';
import { PAGE_HEADERS } from './interaction-pages.js';
import { authenticateUser } from './local-users.js';
import type { LoginThrottle } from './login-throttle.js';
import type { AuditEvent, AuditSink } from '../../core/audit/audit-event.js';

export const CONFIG_PATH = '/mcp/config';
const COOKIE = 'ap_config';
/** the per-browser value the login form's CSRF token is bound to, before any session exists */
const LOGIN_COOKIE = 'ap_config_login';
const SESSION_SECONDS = 30 * 60;

export interface ConfigPageDeps {
  store: OAuthStore;
  throttle: LoginThrottle;
  /** the address a sign-in attempt comes from (behind a trusted proxy: the forwarded one) */
  clientAddress: (req: IncomingMessage) => string | undefined;
  /** cookies marked Secure (the public URL is https) */
  secureCookies: boolean;
  /** the public URL's path (`/agentport` behind a prefix-stripping proxy, else empty): form actions, redirects and the cookie path carry it */
  pathPrefix: string;
  /** admin sign-ins to this page, succeeded and failed */
  audit?: AuditSink;
}

/** Where an audit event of this page came from: address (behind trusted proxies), user agent, request id. */
function requestFacts(d: ConfigPageDeps, req: IncomingMessage, res: ServerResponse): Pick<AuditEvent, 'clientAddress' | 'userAgent' | 'requestId'> {
  const address = d.clientAddress(req);
  const ua = req.headers['user-agent'];
  const requestId = res.getHeader('x-request-id');
  return {
    ...(address !== undefined ? { clientAddress: address } : {}),
    ...(typeof ua === 'string' && ua !== '' ? { userAgent: ua.slice(0, 256) } : {}),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

export function configSessions(store: OAuthStore, secret: Buffer): BrowserSessions {
  return new BrowserSessions(store, secret, { purpose: 'config', ttlMs: SESSION_SECONDS * 1000, requiredScope: 'admin' });
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  return (req.headers.cookie ?? '')
    .split(/;\s*/)
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>OAuth clients · Agentport</title><style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin-top:.75rem}input,select,textarea{display:block;width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:.75rem;padding:.4rem 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:.3rem;text-align:left;vertical-align:top}.secret{background:#ffe;padding:.5rem;word-break:break-all}</style></head><body><main>${body}<p><a href="../../console/">Open the web console</a> (usage, audit, API keys).</p></main></body></html>`;
}

/** The forms here are a few fields long. */
const FORM_LIMIT = 16 * 1024;

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers });
  res.end(html);
}

function loginForm(d: ConfigPageDeps, sessions: BrowserSessions, nonce: string, error?: string): string {
  return page(`<h1>Agentport OAuth clients</h1><p>Sign in as an administrator.</p>${error ? `<p role="alert">${e(error)}</p>` : ''}
<form method="post" action="${d.pathPrefix}${CONFIG_PATH}/login"><input type="hidden" name="csrf" value="${sessions.loginToken(nonce)}">
<label for="u">Username</label><input id="u" name="username" autocomplete="username" required>
<label for="p">Password</label><input id="p" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`);
}

async function clientsPage(d: ConfigPageDeps, sessions: BrowserSessions, sess: ActiveSession, notice = ''): Promise<string> {
  const token = (form: string) => sessions.formToken(sess, form);
  const rows = (await listClients(d.store))
    .map(
      (c) => `<tr><td><code>${e(c.clientId)}</code></td><td>${e(c.name ?? '')}</td><td>${e(c.grantTypes.join(', '))}</td><td>${c.redirectUris.map((u) => `<code>${e(u)}</code>`).join('<br>')}</td>
<td><form method="post" action="${d.pathPrefix}${CONFIG_PATH}/clients/delete"><input type="hidden" name="csrf" value="${token('/clients/delete')}"><input type="hidden" name="clientId" value="${e(c.clientId)}"><button type="submit" aria-label="Delete ${e(c.clientId)}">Delete</button></form></td></tr>`,
    )
    .join('');
  return page(`<h1>OAuth clients</h1>${notice}
<table><thead><tr><th>Client ID</th><th>Name</th><th>Grants</th><th>Redirect URIs</th><th></th></tr></thead><tbody>${rows || '<tr><td colspan="5">No clients yet.</td></tr>'}</tbody></table>
<h2>Register a client</h2>
<form method="post" action="${d.pathPrefix}${CONFIG_PATH}/clients"><input type="hidden" name="csrf" value="${token('/clients')}">
<label for="name">Name (shown on the consent page)</label><input id="name" name="name" required>
<label for="kind">Kind</label><select id="kind" name="kind"><option value="public">public (PKCE, no secret)</option><option value="confidential">confidential (secret)</option><option value="machine">machine (client credentials)</option></select>
<label for="redirects">Redirect URIs, one per line</label><textarea id="redirects" name="redirectUris" rows="3"></textarea>
<label for="scopes">Scopes, space-separated (optional)</label><input id="scopes" name="scopes">
<button type="submit">Register</button></form>
<p>Signed in as <strong>${e(sess.username)}</strong>.</p>
<form method="post" action="${d.pathPrefix}${CONFIG_PATH}/logout"><input type="hidden" name="csrf" value="${token('/logout')}"><button type="submit">Sign out</button></form>`);
}

export async function serveConfigPage(d: ConfigPageDeps, sessions: BrowserSessions, req: IncomingMessage, res: ServerResponse, sub: string, readBody: RequestContext['body']): Promise<void> {
  const cookieAttributes = `Path=${d.pathPrefix}${CONFIG_PATH}; HttpOnly; SameSite=Strict${d.secureCookies ? '; Secure' : ''}`;
  const sess = await sessions.resolve(cookie(req, COOKIE));
  // The login form's token is bound to this browser's own random cookie: set on first sight.
  let nonce = cookie(req, LOGIN_COOKIE);
  const nonceCookie: Record<string, string> = {};
  if (!sess && (!nonce || !/^[A-Za-z0-9_-]{43}$/.test(nonce))) {
    nonce = BrowserSessions.newBrowserNonce();
    nonceCookie['Set-Cookie'] = `${LOGIN_COOKIE}=${nonce}; ${cookieAttributes}; Max-Age=${SESSION_SECONDS}`;
  }
  const signIn = (status: number, error?: string) => send(res, status, loginForm(d, sessions, nonce!, error), nonceCookie);

  if (req.method === 'GET') {
    if (sub !== '' && sub !== '/') return send(res, 404, page('<h1>Not found</h1>'));
    return sess ? send(res, 200, await clientsPage(d, sessions, sess)) : signIn(200);
  }
  if (req.method !== 'POST') return send(res, 405, page('<h1>Not allowed</h1>'), { Allow: 'GET, POST' });
  const body = await readBody(FORM_LIMIT);
  if (typeof body !== 'string') {
    const err = body.error;
    return send(res, err.identity.http, page(`<h1>Not accepted</h1><p>${e(err.message)}</p>`), body.headers);
  }
  const form = new URLSearchParams(body);
  const csrf = form.get('csrf');

  if (sub === '/login') {
    if (!sessions.loginTokenValid(cookie(req, LOGIN_COOKIE), csrf)) return signIn(403, 'The form could not be verified; try again.');
    const username = form.get('username') ?? '';
    const address = d.clientAddress(req);
    const wait = d.throttle.retryAfterSeconds(username, address);
    const signInEvent = (ev: Pick<AuditEvent, 'action' | 'outcome' | 'actor' | 'details'>) => d.audit?.record({ ...ev, target: `user:${username.slice(0, 200)}`, ...requestFacts(d, req, res) });
    if (wait > 0) {
      signInEvent({ action: 'signin.failed', outcome: 'failure', actor: 'anonymous', details: { method: 'password', page: 'config', reason: 'throttled' } });
      return send(res, 429, loginForm(d, sessions, nonce!, `Too many failed sign-ins. Try again in ${wait} seconds.`), { ...nonceCookie, 'Retry-After': String(wait) });
    }
    const user = await authenticateUser(d.store, username, form.get('password') ?? '');
    if (!user?.scopes.includes('admin')) {
      d.throttle.failed(username, address);
      signInEvent({ action: 'signin.failed', outcome: 'failure', actor: 'anonymous', details: { method: 'password', page: 'config', reason: user ? 'not an administrator' : 'wrong username or password' } });
      return signIn(401, 'Wrong username or password, or not an administrator.');
    }
    d.throttle.succeeded(username, address);
    signInEvent({ action: 'signin.succeeded', outcome: 'success', actor: user.username, details: { method: 'password', page: 'config' } });
    const token = await sessions.begin(user.username);
    res.writeHead(303, {
      Location: `${d.pathPrefix}${CONFIG_PATH}/`,
      'Set-Cookie': [`${COOKIE}=${token}; ${cookieAttributes}; Max-Age=${SESSION_SECONDS}`, `${LOGIN_COOKIE}=; ${cookieAttributes}; Max-Age=0`],
      'Cache-Control': 'no-store',
    });
    return void res.end();
  }
  if (!sess || !sessions.formTokenValid(sess, sub, csrf)) return signIn(403, 'Sign in again.');
  if (sub === '/logout') {
    await sessions.endAllOf(sess.username);
    res.writeHead(303, { Location: `${d.pathPrefix}${CONFIG_PATH}/`, 'Set-Cookie': `${COOKIE}=; ${cookieAttributes}; Max-Age=0`, 'Cache-Control': 'no-store' });
    return void res.end();
  }
  if (sub === '/clients/delete') {
    const id = form.get('clientId') ?? '';
    const deleted = await deleteClient(d.store, id);
    if (deleted) d.audit?.record({ action: 'client.deleted', outcome: 'success', actor: sess.username, actorClient: 'config-page', target: `client:${id}`, ...requestFacts(d, req, res) });
    return send(res, deleted ? 200 : 404, await clientsPage(d, sessions, sess, `<p role="status">${deleted ? `Deleted <code>${e(id)}</code>.` : `No client <code>${e(id)}</code>.`}</p>`));
  }
  if (sub === '/clients') {
    const kind = form.get('kind');
    try {
      const created = await createClient(d.store, {
        name: form.get('name') ?? '',
        kind: (kind === 'machine' || kind === 'confidential' ? kind : 'public') as NewClient['kind'],
        redirectUris: (form.get('redirectUris') ?? '').split(/\s+/).filter(Boolean),
        scopes: (form.get('scopes') ?? '').split(/\s+/).filter(Boolean),
      });
      d.audit?.record({
        action: 'client.created',
        outcome: 'success',
        actor: sess.username,
        actorClient: 'config-page',
        target: `client:${created.client.clientId}`,
        ...requestFacts(d, req, res),
        details: { kind: kind ?? 'public', ...(created.client.name !== undefined ? { name: created.client.name } : {}) },
      });
      const notice = `<p role="status">Registered <code>${e(created.client.clientId)}</code>.</p>${created.clientSecret ? `<p>Client secret (shown only now):</p><p class="secret"><code>${e(created.clientSecret)}</code></p>` : ''}`;
      return send(res, 201, await clientsPage(d, sessions, sess, notice));
    } catch (err) {
      if (!(err instanceof ClientInputError)) throw err;
      return send(res, 400, await clientsPage(d, sessions, sess, `<p role="alert">${e(err.message)}</p>`));
    }
  }
  return send(res, 404, page('<h1>Not found</h1>'));
}

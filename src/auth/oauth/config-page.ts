/**
 * `/mcp/config/`: the small admin page of the service Agentport replaces, to register and delete
 * OAuth clients. Sign-in is a local user holding `admin`; the session is an HMAC-signed cookie
 * (HttpOnly, SameSite=Strict, path /mcp/config, 30 minutes); every form carries a CSRF token bound
 * to the session. Plain HTML, no script, works without JavaScript.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyRefusal, bodyRefusalHeaders, readLimitedBody } from '../../bindings/read-limited-body.js';
import type { OAuthStore } from '../../store/oauth-store.js';
import { ClientInputError, createClient, deleteClient, listClients, type NewClient } from './client-registry.js';
import { escapeHtml as e } from './html.js';
import { PAGE_HEADERS } from './interaction-pages.js';
import { authenticateUser } from './local-users.js';
import type { LoginThrottle } from './login-throttle.js';

export const CONFIG_PATH = '/mcp/config';
const COOKIE = 'ap_config';
const SESSION_SECONDS = 30 * 60;

export interface ConfigPageDeps {
  store: OAuthStore;
  secret: Buffer;
  throttle: LoginThrottle;
}

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest('base64url');
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function session(d: ConfigPageDeps, req: IncomingMessage): string | undefined {
  const raw = (req.headers.cookie ?? '').split(/;\s*/).find((c) => c.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1);
  if (!raw) return undefined;
  const [user, exp, sig] = raw.split('.');
  if (!user || !exp || !sig || !same(sig, mac(d.secret, `config:${user}.${exp}`))) return undefined;
  return Number(exp) > Date.now() / 1000 ? raw : undefined;
}

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>OAuth clients · Agentport</title><style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin-top:.75rem}input,select,textarea{display:block;width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:.75rem;padding:.4rem 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:.3rem;text-align:left;vertical-align:top}.secret{background:#ffe;padding:.5rem;word-break:break-all}</style></head><body><main>${body}</main></body></html>`;
}

/** The forms here are a few fields long. */
const FORM_LIMIT = 16 * 1024;

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers });
  res.end(html);
}

function loginForm(d: ConfigPageDeps, error?: string): string {
  return page(`<h1>Agentport OAuth clients</h1><p>Sign in as an administrator.</p>${error ? `<p role="alert">${e(error)}</p>` : ''}
<form method="post" action="${CONFIG_PATH}/login"><input type="hidden" name="csrf" value="${mac(d.secret, 'config-login')}">
<label for="u">Username</label><input id="u" name="username" autocomplete="username" required>
<label for="p">Password</label><input id="p" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`);
}

async function clientsPage(d: ConfigPageDeps, sess: string, notice = ''): Promise<string> {
  const csrf = mac(d.secret, `csrf:${sess}`);
  const rows = (await listClients(d.store))
    .map(
      (c) => `<tr><td><code>${e(c.clientId)}</code></td><td>${e(c.name ?? '')}</td><td>${e(c.grantTypes.join(', '))}</td><td>${c.redirectUris.map((u) => `<code>${e(u)}</code>`).join('<br>')}</td>
<td><form method="post" action="${CONFIG_PATH}/clients/delete"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="clientId" value="${e(c.clientId)}"><button type="submit" aria-label="Delete ${e(c.clientId)}">Delete</button></form></td></tr>`,
    )
    .join('');
  return page(`<h1>OAuth clients</h1>${notice}
<table><thead><tr><th>Client ID</th><th>Name</th><th>Grants</th><th>Redirect URIs</th><th></th></tr></thead><tbody>${rows || '<tr><td colspan="5">No clients yet.</td></tr>'}</tbody></table>
<h2>Register a client</h2>
<form method="post" action="${CONFIG_PATH}/clients"><input type="hidden" name="csrf" value="${csrf}">
<label for="name">Name (shown on the consent page)</label><input id="name" name="name" required>
<label for="kind">Kind</label><select id="kind" name="kind"><option value="public">public (PKCE, no secret)</option><option value="confidential">confidential (secret)</option><option value="machine">machine (client credentials)</option></select>
<label for="redirects">Redirect URIs, one per line</label><textarea id="redirects" name="redirectUris" rows="3"></textarea>
<label for="scopes">Scopes, space-separated (optional)</label><input id="scopes" name="scopes">
<button type="submit">Register</button></form>
<form method="post" action="${CONFIG_PATH}/logout"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`);
}

export async function serveConfigPage(d: ConfigPageDeps, req: IncomingMessage, res: ServerResponse, sub: string): Promise<void> {
  const sess = session(d, req);
  if (req.method === 'GET') {
    if (sub !== '' && sub !== '/') return send(res, 404, page('<h1>Not found</h1>'));
    return send(res, 200, sess ? await clientsPage(d, sess) : loginForm(d));
  }
  if (req.method !== 'POST') return send(res, 405, page('<h1>Not allowed</h1>'), { Allow: 'GET, POST' });
  const body = await readLimitedBody(req, FORM_LIMIT);
  if (typeof body !== 'string') {
    const err = bodyRefusal(body, FORM_LIMIT);
    return send(res, err.identity.http, page(`<h1>Not accepted</h1><p>${e(err.message)}</p>`), bodyRefusalHeaders(body));
  }
  const form = new URLSearchParams(body);
  const csrf = form.get('csrf') ?? '';

  if (sub === '/login') {
    if (!same(csrf, mac(d.secret, 'config-login'))) return send(res, 403, loginForm(d, 'The form could not be verified; try again.'));
    const username = form.get('username') ?? '';
    const address = req.socket.remoteAddress;
    if (!d.throttle.allowed(username, address)) return send(res, 429, loginForm(d, 'Too many failed sign-ins. Wait 15 minutes and try again.'));
    const user = await authenticateUser(d.store, username, form.get('password') ?? '');
    if (!user || !user.scopes.includes('admin')) {
      d.throttle.failed(username, address);
      return send(res, 401, loginForm(d, 'Wrong username or password, or not an administrator.'));
    }
    d.throttle.succeeded(username);
    const exp = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
    const value = `${user.username}.${exp}.${mac(d.secret, `config:${user.username}.${exp}`)}`;
    res.writeHead(303, { Location: `${CONFIG_PATH}/`, 'Set-Cookie': `${COOKIE}=${value}; Path=${CONFIG_PATH}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_SECONDS}`, 'Cache-Control': 'no-store' });
    return void res.end();
  }
  if (!sess || !same(csrf, mac(d.secret, `csrf:${sess}`))) return send(res, 403, loginForm(d, 'Sign in again.'));
  if (sub === '/logout') {
    res.writeHead(303, { Location: `${CONFIG_PATH}/`, 'Set-Cookie': `${COOKIE}=; Path=${CONFIG_PATH}; HttpOnly; SameSite=Strict; Max-Age=0` });
    return void res.end();
  }
  if (sub === '/clients/delete') {
    const id = form.get('clientId') ?? '';
    const deleted = await deleteClient(d.store, id);
    return send(res, deleted ? 200 : 404, await clientsPage(d, sess, `<p role="status">${deleted ? `Deleted <code>${e(id)}</code>.` : `No client <code>${e(id)}</code>.`}</p>`));
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
      const notice = `<p role="status">Registered <code>${e(created.client.clientId)}</code>.</p>${created.clientSecret ? `<p>Client secret (shown only now):</p><p class="secret"><code>${e(created.clientSecret)}</code></p>` : ''}`;
      return send(res, 201, await clientsPage(d, sess, notice));
    } catch (err) {
      if (!(err instanceof ClientInputError)) throw err;
      return send(res, 400, await clientsPage(d, sess, `<p role="alert">${e(err.message)}</p>`));
    }
  }
  return send(res, 404, page('<h1>Not found</h1>'));
}

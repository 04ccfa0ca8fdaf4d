/**
 * The login and consent pages: plain HTML forms that work without JavaScript, every input
 * labelled, no script at all (the CSP forbids it), a CSRF token in each form. Served with
 * `frame-ancestors 'none'` so the consent button cannot be clickjacked.
 */
import { SCOPE_DESCRIPTIONS } from './scopes.js';
import { escapeHtml as e, htmlPage as page, PAGE_HEADERS } from './html.js';

export { PAGE_HEADERS };

export function loginPage(o: {
  action: string;
  csrf: string;
  clientName: string;
  error?: string;
  username?: string;
  usecase?: string;
  localUsers?: boolean;
  upstream?: { action: string; label: string };
  token?: { action: string };
}): string {
  const password = `<form method="post" action="${e(o.action)}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required${o.upstream ? '' : ' autofocus'} value="${e(o.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
  // A form, not a link: starting an upstream sign-in needs the CSRF token too.
  const upstream = o.upstream
    ? `<form method="post" action="${e(o.upstream.action)}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<button type="submit">Sign in with ${e(o.upstream.label)}</button>
</form>`
    : '';
  // The replaced service's form: a bearer token of the identity provider and a usecase id.
  const token = o.token
    ? `<form method="post" action="${e(o.token.action)}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<label for="token">Access token from your identity provider</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<label for="usecase">Usecase id (optional when the token names one)</label>
<input id="usecase" name="usecase" autocomplete="off" value="${e(o.usecase ?? '')}">
<button type="submit">Sign in with a token</button>
</form>`
    : '';
  const local = o.localUsers !== false;
  return page(
    'Sign in',
    `<h1>Sign in to Agentport</h1>
<p><strong>${e(o.clientName)}</strong> wants to access your agents.</p>
${o.error ? `<p class="error" role="alert">${e(o.error)}</p>` : ''}
${upstream}${upstream && local ? '\n<p>or with a local account:</p>\n' : ''}${local ? password : ''}${token && (upstream || local) ? '\n<p>or with a token:</p>\n' : ''}${token}`,
  );
}

export function consentPage(o: { action: string; csrf: string; clientName: string; clientId: string; scopes: readonly string[]; resource?: string; user: string }): string {
  const items = o.scopes.map(
    (s) => `<li><code>${e(s)}</code>${SCOPE_DESCRIPTIONS[s] ? ` — ${e(SCOPE_DESCRIPTIONS[s])}` : s.startsWith('mcp:tools:') ? ` — Use the MCP tools of usecase ${e(s.slice('mcp:tools:'.length))}` : ''}</li>`,
  );
  return page(
    'Authorize',
    `<h1>Authorize ${e(o.clientName)}</h1>
<p>Signed in as <strong>${e(o.user)}</strong>.</p>
<p><strong>${e(o.clientName)}</strong> (<code>${e(o.clientId)}</code>) asks for:</p>
<ul>${items.join('') || '<li>no particular permission</li>'}</ul>
${o.scopes.includes('admin') ? `<p id="mints-keys"><strong>${e(o.clientName)}</strong> will be able to create API keys, for you and for others. The keys it creates for you end when you revoke its access.</p>` : ''}
${o.resource ? `<p>for <code>${e(o.resource)}</code></p>` : ''}
<form method="post" action="${e(o.action)}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function messagePage(title: string, text: string): string {
  return page(title, `<h1>${e(title)}</h1><p>${e(text)}</p>`);
}

/**
 * What the authorization server shows a person when a sign-in request cannot go on (no
 * `client_id`, an unknown client, a redirect URI the client never registered): the OAuth error,
 * in words, and what to do. Never the request's own parameters (they are attacker-chosen).
 */
export function oauthErrorPage(out: { error: string; error_description?: string }): string {
  return page(
    'Sign-in error',
    `<h1>This sign-in cannot continue</h1>
<p class="error" role="alert"><code>${e(out.error)}</code>${out.error_description ? ` — ${e(out.error_description)}` : ''}</p>
<p>Go back to the application and start the sign-in again. If this keeps happening, the application's
OAuth settings (client id, redirect URI) do not match what this server knows; its administrator can check them.</p>`,
  );
}

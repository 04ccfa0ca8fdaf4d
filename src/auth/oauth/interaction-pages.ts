/**
 * The login and consent pages: plain HTML forms that work without JavaScript, every input
 * labelled, no script at all (the CSP forbids it), a CSRF token in each form. Served with
 * `frame-ancestors 'none'` so the consent button cannot be clickjacked.
 */
import { SCOPE_DESCRIPTIONS } from './scopes.js';
import { escapeHtml as e } from './html.js';

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // No form-action: browsers apply it to the redirect back to the client after consent.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
} as const;

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin-top:1rem}input{display:block;width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}button{margin-top:1.25rem;padding:.5rem 1.25rem;font-size:1rem;margin-right:.5rem}.error{color:#b00020}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(title)} · Agentport</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export function loginPage(o: { action: string; csrf: string; clientName: string; error?: string; username?: string; localUsers?: boolean; upstream?: { action: string; label: string } }): string {
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
  const local = o.localUsers !== false;
  return page(
    'Sign in',
    `<h1>Sign in to Agentport</h1>
<p><strong>${e(o.clientName)}</strong> wants to access your agents.</p>
${o.error ? `<p class="error" role="alert">${e(o.error)}</p>` : ''}
${upstream}${upstream && local ? '\n<p>or with a local account:</p>\n' : ''}${local ? password : ''}`,
  );
}

export function consentPage(o: { action: string; csrf: string; clientName: string; clientId: string; scopes: readonly string[]; resource?: string; user: string }): string {
  const items = o.scopes.map((s) => `<li><code>${e(s)}</code>${SCOPE_DESCRIPTIONS[s] ? ` — ${e(SCOPE_DESCRIPTIONS[s])}` : s.startsWith('mcp:tools:') ? ` — Use the MCP tools of usecase ${e(s.slice('mcp:tools:'.length))}` : ''}</li>`);
  return page(
    'Authorize',
    `<h1>Authorize ${e(o.clientName)}</h1>
<p>Signed in as <strong>${e(o.user)}</strong>.</p>
<p><strong>${e(o.clientName)}</strong> (<code>${e(o.clientId)}</code>) asks for:</p>
<ul>${items.join('') || '<li>no particular permission</li>'}</ul>
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

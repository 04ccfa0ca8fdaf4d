/**
 * Shared by the OAuth tests: a started server in `auth.mode: required` with a local user, a
 * cookie jar, and a browser stand-in that drives the login and consent pages over real HTTP.
 */
import path from 'node:path';
import { openSqliteStore } from '../../../src/store/index.js';
import { createUser } from '../../../src/auth/oauth/local-users.js';
import { startTestServer, type TestServer } from '../../support/server.js';

export const USER = { username: 'alice', password: 'correct horse battery staple' };

export async function startOAuthServer(extra: Record<string, unknown> = {}, users: Array<{ username: string; password: string; scopes?: string[] }> = [USER]): Promise<TestServer> {
  const s = await startTestServer({ auth: { mode: 'required', ...(extra.auth as object) }, agents: [{ id: 'echo', builtin: 'echo' }], ...withoutAuth(extra) });
  // Users are created through the same store code as `agentport users create`, on the server's database.
  const store = await openSqliteStore({ file: path.join(s.dataDir, 'agentport.db') });
  try {
    for (const u of users) await createUser(store.oauth, u);
  } finally {
    await store.close();
  }
  return s;
}

function withoutAuth(o: Record<string, unknown>): Record<string, unknown> {
  const { auth: _auth, ...rest } = o;
  return rest;
}

/** Cookies by name, sent back on every request (the server scopes them by path; we need not). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface BrowserResult {
  /** the final redirect to the client (its redirect_uri with code, state, iss or error) */
  callback?: URL;
  /** every page served on the way, for assertions on their content */
  pages: string[];
  /** the last response when the flow stopped before reaching the client */
  stoppedAt?: { status: number; url: string; body: string };
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
const action = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c)));

/**
 * Follows redirects from `start` like a browser, signing in and answering consent with the given
 * decision, until the server redirects to `redirectPrefix` (the client's callback).
 */
export async function browse(_s: TestServer, start: string, o: { redirectPrefix: string; user?: { username: string; password: string }; decision?: 'allow' | 'deny'; jar?: CookieJar }): Promise<BrowserResult> {
  const jar = o.jar ?? new CookieJar();
  const pages: string[] = [];
  let url = start;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(o.redirectPrefix)) return { callback: new URL(url), pages };
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    jar.take(res);
    method = 'GET';
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) return { pages, stoppedAt: { status: res.status, url, body: html } };
    pages.push(html);
    const csrf = field(html, 'csrf');
    const next = action(html);
    if (!csrf || !next) return { pages, stoppedAt: { status: res.status, url, body: html } };
    if (next.endsWith('/login')) {
      const u = o.user ?? USER;
      body = new URLSearchParams({ csrf, username: u.username, password: u.password }).toString();
    } else {
      body = new URLSearchParams({ csrf, decision: o.decision ?? 'allow' }).toString();
    }
    method = 'POST';
    url = new URL(next, url).href;
  }
  throw new Error('too many redirects');
}

export async function mcpToolsList(s: TestServer, token: string, path = '/mcp'): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${s.http}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const raw = await res.text();
  // Streamable HTTP may answer as one SSE event; the JSON-RPC response is its data line.
  const text = raw.startsWith('event:') || raw.startsWith('data:') ? (/^data: (.*)$/m.exec(raw)?.[1] ?? raw) : raw;
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

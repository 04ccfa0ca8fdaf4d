/**
 * The login and consent steps of an authorization request (`/oauth/interaction/{uid}`), driven by
 * oidc-provider's interaction API: GET shows the page the pending prompt needs, POST handles the
 * form. The interaction is bound to oidc-provider's signed, path-scoped, SameSite cookie; each
 * form also carries an HMAC of the interaction id (CSRF token), so a form posted from another
 * site is refused even where cookies travel.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt } from 'jose';
import type { InteractionDetails, Provider } from 'oidc-provider';
import type { OAuthStore } from '../../store/oauth-store.js';
import type { RequestContext } from '../../edge/face.js';
import { NO_AUDIT, type AuditEvent, type AuditSink } from '../../core/audit/audit-event.js';
import { consentPage, loginPage, messagePage, PAGE_HEADERS } from './interaction-pages.js';
import { authenticateUser } from './local-users.js';
import type { LoginThrottle } from './login-throttle.js';
import { grantableScopes } from './scopes.js';
import { UpstreamLoginError, type UpstreamLogin } from './upstream-login.js';
import { CONSOLE_CLIENT_ID } from '../sessions/console-sessions.js';
import { INTERACTION_PATH } from './authorization-server.js';
import { TokenLoginError, type TokenLogin, type TokenLoginResult } from './token-login.js';

const FORM_LIMIT = 8 * 1024;

export interface InteractionDeps {
  provider: Provider;
  formSecret: Buffer;
  /** the public URL's path (`/agentport` behind a prefix-stripping proxy, else empty): the forms post below it */
  pathPrefix: string;
  store: OAuthStore;
  defaultScopes: readonly string[];
  throttle: LoginThrottle;
  /** the address a sign-in attempt comes from (behind a trusted proxy: the forwarded one) */
  clientAddress: (req: IncomingMessage) => string | undefined;
  /** the username and password form (auth.oauth.localUsers) */
  localUsers: boolean;
  /** the "Sign in with …" button (auth.oauth.upstream) */
  upstream?: UpstreamLogin;
  /** sign-in with a bearer token and a usecase (auth.oauth.login: token) */
  tokenLogin?: {
    login: TokenLogin;
    /** staging: sign in with this token and approve without a page */
    autoApprove?: { token: string; usecase?: string };
    /** how long a usecase stays bound to its authorization (the grant's lifetime) */
    grantTtlSeconds: number;
  };
  log: { warn(o: object, m?: string): void };
  /** sign-ins (succeeded, failed) and consent (granted, denied) */
  audit?: AuditSink;
}

export function csrfToken(secret: Buffer, uid: string): string {
  return createHmac('sha256', secret).update(`interaction:${uid}`).digest('base64url');
}

function csrfValid(secret: Buffer, uid: string, presented: string | null): boolean {
  if (!presented) return false;
  const a = Buffer.from(csrfToken(secret, uid));
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers });
  res.end(html);
}

export async function serveInteraction(d: InteractionDeps, req: IncomingMessage, res: ServerResponse, uid: string, step: string | undefined, readBody: RequestContext['body']): Promise<void> {
  let details: InteractionDetails;
  try {
    details = await d.provider.interactionDetails(req, res);
  } catch {
    return send(res, 400, messagePage('Sign-in expired', 'This sign-in request has expired or was already used. Go back to the application and start again.'));
  }
  if (details.uid !== uid) return send(res, 400, messagePage('Sign-in expired', 'This sign-in request does not match your session. Start again from the application.'));
  const clientId = String(details.params.client_id ?? '');
  const audit = d.audit ?? NO_AUDIT;
  const requestId = res.getHeader('x-request-id');
  const ua = req.headers['user-agent'];
  /** An audit event of this request: its client, address, user agent and request id filled in. */
  const emit = (e: Omit<AuditEvent, 'actorClient' | 'clientAddress' | 'userAgent' | 'requestId'>) => {
    const address = d.clientAddress(req);
    audit.record({
      ...e,
      ...(clientId ? { actorClient: clientId } : {}),
      ...(address !== undefined ? { clientAddress: address } : {}),
      ...(typeof ua === 'string' && ua !== '' ? { userAgent: ua.slice(0, 256) } : {}),
      ...(typeof requestId === 'string' ? { requestId } : {}),
    });
  };
  const signedIn = (accountId: string, method: string) => emit({ action: 'signin.succeeded', outcome: 'success', actor: accountId, target: `user:${accountId}`, details: { method } });
  const signInFailed = (claimed: string, method: string, reason: string) => emit({ action: 'signin.failed', outcome: 'failure', actor: 'anonymous', target: `user:${claimed.slice(0, 200)}`, details: { method, reason } });
  const client = await d.provider.Client.find(clientId);
  const clientName = client?.clientName ?? clientId;
  const action = `${d.pathPrefix}${INTERACTION_PATH}/${encodeURIComponent(uid)}`;
  const csrf = csrfToken(d.formSecret, uid);
  const login = (o: { error?: string; username?: string; usecase?: string } = {}) =>
    loginPage({
      action: `${action}/login`,
      csrf,
      clientName,
      localUsers: d.localUsers,
      ...(d.upstream ? { upstream: { action: `${action}/upstream`, label: d.upstream.label } } : {}),
      ...(d.tokenLogin ? { token: { action: `${action}/token` } } : {}),
      ...o,
    });
  /** The token sign-in of this interaction, when the login step was one (carried by oidc-provider). */
  const signedInWithToken = (details.lastSubmission as { tokenLogin?: TokenLoginResult; autoApproved?: boolean } | undefined) ?? {};
  /**
   * The browser is signed in at the provider as another account (issue 25, CS1: a second person
   * signs in to the console in the same browser): oidc-provider would answer with its logout
   * confirmation, which is off here (404). The new sign-in replaces the old one instead: the old
   * provider session ends and the interaction no longer points at it.
   */
  const replaceOtherSession = async (accountId: string): Promise<void> => {
    const current = details.session;
    if (current?.accountId === undefined || current.accountId === accountId) return;
    if (current.cookie !== undefined) await d.store.revokeRecord('Session', current.cookie, Date.now());
    delete details.session;
    await details.save(Math.max(1, details.exp - Math.floor(Date.now() / 1000)));
  };
  const finishLogin = async (accountId: string, result: Record<string, unknown> = {}): Promise<void> => {
    await replaceOtherSession(accountId);
    return d.provider.interactionFinished(req, res, { login: { accountId }, ...result }, { mergeWithLastSubmission: false });
  };
  const finishTokenLogin = (result: TokenLoginResult, autoApproved: boolean) => finishLogin(result.accountId, { tokenLogin: result, ...(autoApproved ? { autoApproved } : {}) });

  // Back from the upstream's callback (src/auth/oauth/upstream-login.ts): this browser holds the
  // interaction cookie, and the callback verified the account for this very interaction.
  if (req.method === 'GET' && step === 'upstream-done' && d.upstream && details.prompt.name === 'login') {
    const state = new URL(req.url ?? '/', 'http://x').searchParams.get('state') ?? '';
    const accountId = await d.upstream.take(state, uid);
    if (!accountId) return send(res, 400, messagePage('Sign-in expired', 'This sign-in has expired or was already used. Start again from the application.'));
    signedIn(accountId, 'upstream');
    return finishLogin(accountId);
  }
  if (req.method === 'GET') {
    const auto = d.tokenLogin?.autoApprove;
    if (details.prompt.name === 'login' && auto) {
      try {
        const result = await d.tokenLogin!.login.verify(auto.token, auto.usecase);
        signedIn(result.accountId, 'token-auto-approve');
        return await finishTokenLogin(result, true);
      } catch (err) {
        if (!(err instanceof TokenLoginError)) throw err;
        signInFailed(claimedAccount(auto.token), 'token-auto-approve', err.message);
        d.log.warn({ reason: err.message }, 'oauth: the auto-approve token was refused');
        return send(res, err.status, login({ error: `Automatic approval failed: ${err.message}` }));
      }
    }
    if (details.prompt.name === 'login') return send(res, 200, login());
    const accountId = details.session?.accountId ?? '';
    // A token sign-in binds one authorization; a session of an earlier one must sign in again.
    if (d.tokenLogin?.login.isAccount(accountId) && signedInWithToken.tokenLogin?.accountId !== accountId) {
      return d.provider.interactionFinished(req, res, { error: 'login_required', error_description: 'Sign in with your token again' }, { mergeWithLastSubmission: false });
    }
    if (signedInWithToken.autoApproved && signedInWithToken.tokenLogin?.accountId === accountId) return approve(accountId);
    // The web console is Agentport's own first-party client: no consent page (the user's own scopes cap the grant).
    if (clientId === CONSOLE_CLIENT_ID) return approve(accountId);
    return send(res, 200, consentPage({ action: `${action}/confirm`, csrf, clientName, clientId, scopes: await scopesToGrant(d, details, accountId), ...resourceOf(details), user: accountId }));
  }
  if (req.method !== 'POST') return send(res, 405, messagePage('Not allowed', 'Use the form.'));

  const body = await readBody(FORM_LIMIT);
  if (typeof body !== 'string') {
    for (const [k, v] of Object.entries(body.headers)) res.setHeader(k, v);
    return send(res, body.error.identity.http, messagePage('Not accepted', body.error.message));
  }
  const form = new URLSearchParams(body);
  if (!csrfValid(d.formSecret, uid, form.get('csrf'))) return send(res, 403, messagePage('Refused', 'The form could not be verified. Reload the page and try again.'));

  if (step === 'upstream' && details.prompt.name === 'login' && d.upstream) {
    try {
      const { location, setCookie } = await d.upstream.begin(uid);
      res.writeHead(303, { Location: location, 'Set-Cookie': setCookie, 'Cache-Control': 'no-store' });
      res.end();
      return;
    } catch (err) {
      if (err instanceof UpstreamLoginError) return send(res, err.status, login({ error: err.message }));
      throw err;
    }
  }

  if (step === 'token' && details.prompt.name === 'login' && d.tokenLogin) {
    const address = d.clientAddress(req);
    const token = form.get('token') ?? '';
    // Throttled per account the token claims (unverified: it only names the counter) and address.
    const key = `token:${claimedAccount(token)}`;
    const wait = d.throttle.retryAfterSeconds(key, address);
    const usecase = form.get('usecase') ?? '';
    if (wait > 0) {
      signInFailed(claimedAccount(token), 'token', 'throttled');
      return send(res, 429, login({ error: `Too many failed sign-ins. Try again in ${wait} seconds.`, usecase }), { 'Retry-After': String(wait) });
    }
    try {
      const result = await d.tokenLogin.login.verify(token, usecase || undefined);
      d.throttle.succeeded(key, address);
      signedIn(result.accountId, 'token');
      return await finishTokenLogin(result, false);
    } catch (err) {
      if (!(err instanceof TokenLoginError)) throw err;
      d.throttle.failed(key, address);
      signInFailed(claimedAccount(token), 'token', err.message);
      d.log.warn({ reason: err.message }, 'oauth: failed token sign-in');
      return send(res, err.status, login({ error: err.message, usecase }));
    }
  }

  if (step === 'login' && details.prompt.name === 'login') {
    if (!d.localUsers) return send(res, 403, login({ error: 'Sign-in with a password is turned off here.' }));
    const username = form.get('username') ?? '';
    const address = d.clientAddress(req);
    const wait = d.throttle.retryAfterSeconds(username, address);
    if (wait > 0) {
      signInFailed(username, 'password', 'throttled');
      return send(res, 429, login({ error: `Too many failed sign-ins. Try again in ${wait} seconds.`, username }), { 'Retry-After': String(wait) });
    }
    const user = await authenticateUser(d.store, username, form.get('password') ?? '');
    if (!user) {
      d.throttle.failed(username, address);
      signInFailed(username, 'password', 'wrong username or password');
      d.log.warn({ username: username.slice(0, 64) }, 'oauth: failed sign-in');
      return send(res, 401, login({ error: 'Wrong username or password.', username }));
    }
    d.throttle.succeeded(username, address);
    signedIn(user.username, 'password');
    return finishLogin(user.username);
  }

  if (step === 'confirm' && details.prompt.name === 'consent') {
    if (form.get('decision') !== 'allow') {
      const who = details.session?.accountId;
      emit({ action: 'consent.denied', outcome: 'denied', actor: who ?? 'anonymous', target: `client:${clientId}` });
      return d.provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied the request' }, { mergeWithLastSubmission: false });
    }
    const accountId = details.session?.accountId;
    if (!accountId) return send(res, 400, messagePage('Sign-in expired', 'Sign in again.'));
    return approve(accountId);
  }
  return send(res, 400, messagePage('Out of step', 'This step does not match the sign-in request. Start again from the application.'));

  /** The consent: the requested scopes this account may grant, the rest refused. */
  async function approve(accountId: string) {
    const grant = (details.grantId ? await d.provider.Grant.find(details.grantId) : undefined) ?? new d.provider.Grant({ accountId, clientId });
    const promptDetails = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (promptDetails.missingOIDCScope?.length) grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
    const allowed = await userScopes(d, accountId, signedInWithToken.tokenLogin);
    const grantedScopes: string[] = [];
    for (const [resource, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
      const granted = grantableScopes(scopes, allowed);
      grantedScopes.push(...granted);
      if (granted.length) grant.addResourceScope(resource, granted.join(' '));
      // Scopes the user may not grant are rejected, not left missing (which would ask again).
      const refused = scopes.filter((s) => !granted.includes(s));
      if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    }
    const grantId = await grant.save();
    emit({
      action: 'consent.granted',
      outcome: 'success',
      actor: accountId,
      target: `client:${clientId}`,
      details: { grantId, ...(signedInWithToken.autoApproved ? { autoApproved: true } : {}), scopes: [...new Set(grantedScopes)] },
    });
    const tokenLogin = signedInWithToken.tokenLogin;
    if (d.tokenLogin && tokenLogin?.accountId === accountId) await d.tokenLogin.login.bindGrant(grantId, tokenLogin.usecase, d.tokenLogin.grantTtlSeconds);
    return d.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
}

function claimedAccount(token: string): string {
  try {
    const { iss, sub } = decodeJwt(token.trim());
    return `${String(iss).slice(0, 200)}#${String(sub).slice(0, 200)}`;
  } catch {
    return '?';
  }
}

async function userScopes(d: InteractionDeps, accountId: string, tokenLogin?: TokenLoginResult): Promise<readonly string[]> {
  if (tokenLogin?.accountId === accountId) return tokenLogin.scopes;
  if (d.tokenLogin?.login.isAccount(accountId)) return [];
  const upstream = d.upstream?.scopesOf(accountId);
  if (upstream) return upstream;
  return (await d.store.getUser(accountId))?.scopes ?? [];
}

/** What the consent page lists: the requested resource scopes this user may grant. */
async function scopesToGrant(d: InteractionDeps, details: InteractionDetails, accountId: string): Promise<string[]> {
  const missing = (details.prompt.details as { missingResourceScopes?: Record<string, string[]> }).missingResourceScopes ?? {};
  const requested = [...new Set(Object.values(missing).flat())];
  const tokenLogin = (details.lastSubmission as { tokenLogin?: TokenLoginResult } | undefined)?.tokenLogin;
  return grantableScopes(requested.length ? requested : d.defaultScopes, await userScopes(d, accountId, tokenLogin));
}

function resourceOf(details: InteractionDetails): { resource?: string } {
  const r = details.params.resource;
  const first = Array.isArray(r) ? r[0] : r;
  return typeof first === 'string' ? { resource: first } : {};
}

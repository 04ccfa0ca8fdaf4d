/**
 * A server with authentication on (auth.mode: required) and principals with chosen scopes, made
 * the way an operator makes them: the first-start admin key creates stored API keys over
 * POST /api/v1/keys.
 */
import type { StartOptions } from '../../../src/server/start.js';
import { startTestServer, type TestServer } from '../../support/server.js';

export interface AuthzServer extends TestServer {
  adminKey: string;
  /** a stored API key for `subject` with exactly `scopes` (and optionally a usecase) */
  key(subject: string, scopes: string[], usecase?: string): Promise<string>;
}

export async function startAuthzServer(config: Record<string, unknown> = {}, services?: StartOptions): Promise<AuthzServer> {
  const auth = (config.auth ?? {}) as Record<string, unknown>;
  const s = await startTestServer({ ...config, auth: { ...auth, mode: 'required' } }, services ? { services } : {});
  const adminKey = s.firstAdminKey;
  if (!adminKey) {
    await s.stop();
    throw new Error('the first start in required mode printed no admin key');
  }
  return {
    ...s,
    adminKey,
    async key(subject, scopes, usecase) {
      const res = await fetch(`${s.http}/api/v1/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
        body: JSON.stringify({ subject, scopes, ...(usecase ? { usecase } : {}) }),
      });
      if (res.status !== 201) throw new Error(`POST /api/v1/keys: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { key: string }).key;
    },
  };
}

/** Parses `Bearer a="x", b="y"` into its parameters. */
export function challengeParams(header: string | null): Record<string, string> {
  if (!header || !/^Bearer\b/.test(header)) return {};
  const out: Record<string, string> = {};
  for (const m of header.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

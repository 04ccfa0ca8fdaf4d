/**
 * Random secrets of the authorization server (cookie signing, form CSRF tokens), created once and
 * kept in the store so every replica and every restart uses the same ones: a cookie set by one
 * replica must verify on the next, and a login form must survive a restart.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthStore } from '../../store/oauth-store.js';

const MODEL = 'ServerSecret';

export async function serverSecret(store: OAuthStore, name: string): Promise<string> {
  await store.createRecord(MODEL, name, { value: randomBytes(32).toString('base64url') });
  // Whoever inserted first wins; everyone reads the winner's value.
  const r = await store.findRecord(MODEL, name, Date.now());
  const value = r?.payload.value;
  if (typeof value !== 'string') throw new Error(`the OAuth server secret '${name}' could not be read from the store`);
  return value;
}

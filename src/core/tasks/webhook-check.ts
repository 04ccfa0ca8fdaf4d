/** Whether a webhook URL may be used, answered without telling the caller about the server's network. */
import { invalidParams } from '../../protocol/a2a/errors.js';

/** the one answer for a webhook whose host the outbound (SSRF) policy refuses, whatever the reason */
export const WEBHOOK_REFUSED = "the push notification URL is refused by the server's outbound network policy";

export interface PushUrlGuard {
  /** Throws with a client-safe message when the URL may not be used as a webhook. */
  check(url: string): Promise<unknown>;
}

export async function checkWebhook(guard: PushUrlGuard | undefined, log: { warn(obj: object, msg?: string): void }, url: string): Promise<void> {
  if (!guard) return;
  try {
    await guard.check(url);
  } catch (e) {
    // The URL's own text (not absolute, scheme, credentials) may be named; what its host is or
    // resolves to may not: telling "loopback" from "private" from "does not resolve" would map
    // the server's network for the caller (an internal name that resolves is refused, one that
    // does not would be accepted). One answer, and a refusal either way; the details in the log
    // only (issue 25). A name that fails to resolve for a moment is registered again by its owner.
    const kind = (e as { kind?: string }).kind;
    if (kind === 'invalid-url' || kind === 'scheme' || kind === 'credentials') throw invalidParams('url', (e as Error).message);
    log.warn({ url, reason: e instanceof Error ? e.message : String(e) }, 'push notification URL refused by the outbound policy');
    throw invalidParams('url', WEBHOOK_REFUSED);
  }
}

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
    const reason = e instanceof Error ? e.message : String(e);
    // The answer depends on the URL's text alone, never on what DNS says about its name: refusing
    // a name that resolves inside while accepting one that does not resolve would tell the caller
    // which internal names exist (issue 25). Such a name is accepted; every delivery re-checks and
    // pins its addresses, and a refused one shows its owner the one sentence below (webhook-sender.ts).
    if ((e as { fromDns?: boolean }).fromDns === true) {
      log.warn({ url, reason }, 'push notification URL accepted, though the outbound policy refuses its host now');
      return;
    }
    // The URL's own text (not absolute, scheme, credentials) may be named; what its host is may not
    // ("loopback" from "private" from a blocked name): one answer, the details in the log only.
    const kind = (e as { kind?: string }).kind;
    if (kind === 'invalid-url' || kind === 'scheme' || kind === 'credentials') throw invalidParams('url', reason);
    log.warn({ url, reason }, 'push notification URL refused by the outbound policy');
    throw invalidParams('url', WEBHOOK_REFUSED);
  }
}

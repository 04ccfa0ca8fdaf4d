/**
 * Registering a webhook (issue 25): the answer depends on the URL's text alone, never on what DNS
 * says about its name, so it maps nothing of the server's network. A name that does not resolve and
 * one that resolves to an internal address are both accepted (every delivery re-checks and pins,
 * and shows the owner one sentence: webhook-sender.test.ts), each reason logged; an internal
 * address or a blocked name written in the URL is refused with one text. The guard is the real
 * SsrfGuard with its resolver given (the names are made up, so DNS answers are the test's).
 */
import { describe, expect, it } from 'vitest';
import { SsrfGuard } from '../../../src/net/ssrf-guard.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { checkWebhook, WEBHOOK_REFUSED } from '../../../src/core/push/webhook-check.js';

const RESOLVES: Record<string, string[]> = {
  'inside.corp.example': ['10.1.2.3'],
  'public.hooks.example': ['8.8.8.8'],
};

const guard = new SsrfGuard({
  resolve: async (host) => {
    const found = RESOLVES[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  },
});

function recordingLog() {
  const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  return { lines, warn: (obj: object, msg?: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }) };
}

async function refusalOf(url: string, log = recordingLog()): Promise<A2AError> {
  const err = await checkWebhook(guard, log, url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, url).toBeInstanceOf(A2AError);
  return err as A2AError;
}

describe('checkWebhook', () => {
  it('answers a name that does not resolve as one that resolves inside (both accepted), and logs each reason', async () => {
    const log = recordingLog();
    await expect(checkWebhook(guard, log, 'https://missing.corp.example/hook')).resolves.toBeUndefined();
    await expect(checkWebhook(guard, log, 'https://inside.corp.example/hook')).resolves.toBeUndefined();
    expect(log.lines.map((l) => l.obj.reason)).toEqual(['push notification URL host could not be resolved', 'push notification URL host resolves to a private address']);
    expect(log.lines.map((l) => l.obj.url)).toEqual(['https://missing.corp.example/hook', 'https://inside.corp.example/hook']);
  });

  it('accepts a name that resolves to a public address, logging nothing', async () => {
    const log = recordingLog();
    await expect(checkWebhook(guard, log, 'https://public.hooks.example/hook')).resolves.toBeUndefined();
    expect(log.lines).toEqual([]);
  });

  it('refuses an internal address or a blocked name written in the URL with one text, the reason in the log', async () => {
    const log = recordingLog();
    const texts = new Set<string>();
    for (const url of ['https://10.1.2.3/hook', 'https://127.0.0.1/hook', 'https://localhost/hook']) {
      const err = await refusalOf(url, log);
      expect(err.kind).toBe('InvalidParams');
      texts.add(err.message);
    }
    expect([...texts]).toHaveLength(1);
    expect([...texts][0]).toContain(WEBHOOK_REFUSED);
    expect(log.lines.map((l) => l.obj.reason)).toEqual(['push notification URL host is a private address', 'push notification URL host is a loopback address', 'push notification URL host is not allowed']);
  });

  it("names what is wrong with the URL's own text", async () => {
    expect((await refusalOf('not a url')).message).toMatch(/not a valid absolute URL/);
    expect((await refusalOf('http://public.hooks.example/hook')).message).toMatch(/must use https/);
  });
});

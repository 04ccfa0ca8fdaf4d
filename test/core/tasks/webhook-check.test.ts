/**
 * Registering a webhook (issue 25): a host that does not resolve and one that resolves to an
 * internal address get one and the same refusal, so the answer maps nothing of the server's
 * network; what each host is or resolves to goes to the server log only. The guard is the real
 * SsrfGuard with its resolver given (the names are made up, so DNS answers are the test's).
 */
import { describe, expect, it } from 'vitest';
import { SsrfGuard } from '../../../src/net/ssrf-guard.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import { checkWebhook, WEBHOOK_REFUSED } from '../../../src/core/tasks/webhook-check.js';

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
  it('refuses a host that does not resolve with the same error as one that resolves inside, and logs each reason', async () => {
    const log = recordingLog();
    const missing = await refusalOf('https://missing.corp.example/hook', log);
    const inside = await refusalOf('https://inside.corp.example/hook', log);
    expect(missing.kind).toBe('InvalidParams');
    expect(missing.message).toBe(inside.message);
    expect(missing.message).toContain(WEBHOOK_REFUSED);
    expect(JSON.stringify(missing)).toBe(JSON.stringify(inside));
    expect(log.lines.map((l) => l.obj.reason)).toEqual(['push notification URL host could not be resolved', 'push notification URL host resolves to a private address']);
    expect(log.lines.map((l) => l.obj.url)).toEqual(['https://missing.corp.example/hook', 'https://inside.corp.example/hook']);
  });

  it('accepts a host that resolves to a public address', async () => {
    await expect(checkWebhook(guard, recordingLog(), 'https://public.hooks.example/hook')).resolves.toBeUndefined();
  });

  it("names what is wrong with the URL's own text", async () => {
    expect((await refusalOf('not a url')).message).toMatch(/not a valid absolute URL/);
    expect((await refusalOf('http://public.hooks.example/hook')).message).toMatch(/must use https/);
  });
});

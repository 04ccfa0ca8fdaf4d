import { createHash } from 'node:crypto';
import { generateKeyPair, jwtVerify, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse, TaskPushNotificationConfig } from '../../../src/protocol/a2a/types.js';
import { PushJwtSigner, PUSH_JWT_TYPE } from '../../../src/core/push/push-jwt.js';
import { SsrfGuard } from '../../../src/net/ssrf-guard.js';
import { classifyStatus, sendWebhook } from '../../../src/core/push/webhook-sender.js';
import { WEBHOOK_REFUSED } from '../../../src/core/push/webhook-check.js';
import { startReceiver, type Receiver } from './receiver.js';

const body: StreamResponse = {
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx-1',
    status: { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00.000Z' },
    metadata: { note: 'é ✓' },
  },
};

const guard = new SsrfGuard({ allowHttp: true, allow: ['127.0.0.1'] });

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function config(url: string, extra: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig {
  return { id: 'cfg-1', taskId: 'task-1', url, ...extra };
}

describe('sendWebhook: request', () => {
  it('POSTs the StreamResponse as application/a2a+json with A2A-Version, Authorization and the token header', async () => {
    receiver = await startReceiver();
    const result = await sendWebhook(config(receiver.url('/hook?tenant=a'), { token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 'secret-cred' } }), body, { timeoutMs: 2000, guard });
    expect(result).toEqual({ ok: true, status: 200, retryable: false });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook?tenant=a');
    expect(req.headers['content-type']).toBe('application/a2a+json');
    expect(req.headers['a2a-version']).toBe('1.0');
    expect(req.headers.authorization).toBe('Bearer secret-cred');
    expect(req.headers['x-a2a-notification-token']).toBe('tok-123');
    expect(req.headers['x-a2a-notification-jwt']).toBeUndefined();
    expect(req.headers['content-length']).toBe(String(req.body.length));
    expect(JSON.parse(req.body.toString('utf8'))).toEqual(body);
  });

  it('sends neither Authorization nor the token header when the config has none', async () => {
    receiver = await startReceiver();
    await sendWebhook(config(receiver.url()), body, { timeoutMs: 2000, guard });
    const headers = receiver.requests[0]!.headers;
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-a2a-notification-token']).toBeUndefined();
  });

  it('sends the bare scheme when authentication has no credentials', async () => {
    receiver = await startReceiver();
    await sendWebhook(config(receiver.url(), { authentication: { scheme: 'Custom' } }), body, { timeoutMs: 2000, guard });
    expect(receiver.requests[0]!.headers.authorization).toBe('Custom');
  });

  it('connects to the address the guard checked, not to a fresh DNS answer, and keeps the URL host in Host', async () => {
    receiver = await startReceiver();
    // hooks.test does not exist in DNS: the delivery can only arrive through the pinned address.
    const pinned = new SsrfGuard({ allowHttp: true, allow: ['hooks.test'], resolve: async () => ['127.0.0.1'] });
    const result = await sendWebhook(config(`http://hooks.test:${receiver.port}/hook`), body, { timeoutMs: 2000, guard: pinned });
    expect(result.ok).toBe(true);
    expect(receiver.requests[0]!.headers.host).toBe(`hooks.test:${receiver.port}`);
  });

  it('sends nothing and does not retry when the guard refuses the URL', async () => {
    receiver = await startReceiver();
    const strict = new SsrfGuard({ allowHttp: true });
    const result = await sendWebhook(config(receiver.url()), body, { timeoutMs: 2000, guard: strict });
    expect(result).toEqual({ ok: false, retryable: false, error: WEBHOOK_REFUSED, detail: 'push notification URL host is a loopback address' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('gives the owner one error for a host that no longer resolves and one that now resolves inside; the reason is only the detail (issue 25)', async () => {
    const moved = new SsrfGuard({
      resolve: async (host) => {
        if (host === 'gone.hooks.example') throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.hooks.example'), { code: 'ENOTFOUND' });
        return ['10.20.30.40'];
      },
    });
    const gone = await sendWebhook(config('https://gone.hooks.example/hook'), body, { timeoutMs: 2000, guard: moved });
    const inside = await sendWebhook(config('https://inside.hooks.example/hook'), body, { timeoutMs: 2000, guard: moved });
    // the same error and the same retries: nothing tells the owner which
    expect(gone).toMatchObject({ ok: false, retryable: true, error: WEBHOOK_REFUSED });
    expect(inside).toMatchObject({ ok: false, retryable: true, error: WEBHOOK_REFUSED });
    expect(gone.detail).toBe('push notification URL host could not be resolved');
    expect(inside.detail).toBe('push notification URL host resolves to a private address');
  });

  it('refuses a token with CR/LF instead of splitting the request', async () => {
    receiver = await startReceiver();
    const result = await sendWebhook(config(receiver.url(), { token: 'a\r\nX-Injected: 1' }), body, { timeoutMs: 2000, guard });
    expect(result).toMatchObject({ ok: false, retryable: false });
    expect(result.error).toContain('X-A2A-Notification-Token');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('sendWebhook: outcome classification', () => {
  it.each([
    [200, true, false],
    [202, true, false],
    [204, true, false],
    [400, false, false],
    [401, false, false],
    [404, false, false],
    [410, false, false],
    [408, false, true],
    [429, false, true],
    [500, false, true],
    [502, false, true],
    [503, false, true],
  ])('HTTP %i → ok %s, retryable %s', async (status, ok, retryable) => {
    receiver = await startReceiver((_r, res) => res.writeHead(status).end('x'));
    const result = await sendWebhook(config(receiver.url()), body, { timeoutMs: 2000, guard });
    expect(result).toMatchObject({ ok, status, retryable });
  });

  it('classifies statuses without a request too', () => {
    expect(classifyStatus(299)).toMatchObject({ ok: true });
    expect(classifyStatus(499)).toMatchObject({ ok: false, retryable: false });
  });

  it('does not follow a redirect, and does not retry it', async () => {
    receiver = await startReceiver((req, res) => {
      if (req.url === '/hook') res.writeHead(307, { Location: '/elsewhere' }).end();
      else res.writeHead(200).end();
    });
    const result = await sendWebhook(config(receiver.url('/hook')), body, { timeoutMs: 2000, guard });
    expect(result).toMatchObject({ ok: false, status: 307, retryable: false });
    expect(result.error).toContain('redirect not followed');
    expect(receiver.requests.map((r) => r.url)).toEqual(['/hook']);
  });

  it('times out a receiver that never answers, as retryable', async () => {
    receiver = await startReceiver(() => {
      /* never respond */
    });
    const started = Date.now();
    const result = await sendWebhook(config(receiver.url()), body, { timeoutMs: 300, guard });
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ ok: false, retryable: true, error: 'timed out after 300 ms' });
    expect(result.status).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  it('stops reading an endless response body at the cap and keeps the status outcome', async () => {
    receiver = await startReceiver((_r, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const started = Date.now();
    const result = await sendWebhook(config(receiver.url()), body, { timeoutMs: 5000, guard, maxResponseBytes: 32 * 1024 });
    expect(result).toEqual({ ok: true, status: 200, retryable: false });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection as retryable', async () => {
    receiver = await startReceiver();
    const url = receiver.url();
    await receiver.close();
    receiver = undefined;
    const result = await sendWebhook(config(url), body, { timeoutMs: 2000, guard });
    expect(result).toMatchObject({ ok: false, retryable: true, error: 'connection failed: ECONNREFUSED' });
  });
});

describe('sendWebhook: signed notification JWT', () => {
  it('adds an ES256 JWT that verifies against the public key and binds audience, task and body', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const signer = new PushJwtSigner({
      issuer: 'https://agent.example.com',
      keys: { getSigningKey: async () => ({ kid: 'push-key-1', privateKey, alg: 'ES256' }) },
    });
    receiver = await startReceiver();
    const url = receiver.url('/hook');
    const result = await sendWebhook(config(url, { authentication: { scheme: 'Bearer', credentials: 'c' } }), body, { timeoutMs: 2000, guard, signer });
    expect(result.ok).toBe(true);
    const req = receiver.requests[0]!;
    // The config's credentials keep Authorization; the JWT travels beside them.
    expect(req.headers.authorization).toBe('Bearer c');
    const jwt = req.headers['x-a2a-notification-jwt'];
    expect(typeof jwt).toBe('string');

    const header = decodeProtectedHeader(jwt as string);
    expect(header).toMatchObject({ alg: 'ES256', kid: 'push-key-1', typ: PUSH_JWT_TYPE });

    const { payload } = await jwtVerify(jwt as string, publicKey, {
      issuer: 'https://agent.example.com',
      audience: url,
      typ: PUSH_JWT_TYPE,
      algorithms: ['ES256'],
    });
    expect(payload.taskId).toBe('task-1');
    expect(payload.body_sha256).toBe(createHash('sha256').update(req.body).digest('hex'));
    expect(typeof payload.jti).toBe('string');
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it('gives every delivery a fresh jti', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const signer = new PushJwtSigner({
      issuer: 'https://agent.example.com',
      keys: { getSigningKey: async () => ({ kid: 'k', privateKey, alg: 'ES256' }) },
    });
    const a = await signer.sign({ audience: 'https://r.example.com/', taskId: 't', body: Buffer.from('{}') });
    const b = await signer.sign({ audience: 'https://r.example.com/', taskId: 't', body: Buffer.from('{}') });
    const jti = (t: string) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).jti as string;
    expect(jti(a)).not.toBe(jti(b));
  });

  it('treats a failing key store as a retryable failure without sending', async () => {
    const signer = new PushJwtSigner({
      issuer: 'https://agent.example.com',
      keys: { getSigningKey: async () => Promise.reject(new Error('key store down')) },
    });
    receiver = await startReceiver();
    const result = await sendWebhook(config(receiver.url()), body, { timeoutMs: 2000, guard, signer });
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(receiver.requests).toHaveLength(0);
  });
});

/**
 * One push delivery attempt (A2A v1.0.1 §9): POST the StreamResponse to the registered URL and
 * classify the outcome for the retry policy. The connection goes through the pinned client
 * (src/net), so it reaches only the addresses the SSRF guard approved; redirects are never followed
 * (a 3xx could point anywhere the guard never saw).
 */
import http from 'node:http';
import type { StreamResponse, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import type { PushBodyVersion } from './push-body-version.js';
import type { PushJwtSigner } from './push-jwt.js';
import { pinnedRequest, SsrfRejectedError, type SsrfGuard } from '../../net/index.js';
import type { Context } from '../../observability/tracing/index.js';
import { WEBHOOK_REFUSED } from './webhook-check.js';

export const PUSH_CONTENT_TYPE = 'application/a2a+json';
export const A2A_VERSION = '1.0';
/** v1.0.0 and v0.3 carried the config's token here and both SDKs still send it (digest §9). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';
/** The signed JWT of the optional §9 pattern; Authorization stays reserved for the config's own credentials. */
export const NOTIFICATION_JWT_HEADER = 'X-A2A-Notification-JWT';
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendWebhookOptions {
  timeoutMs: number;
  /**
   * The registering client's wire version (push-body-version.ts). v0.3 and v0.1 receivers get
   * `application/json` and no A2A-Version header, as those versions' servers sent.
   */
  bodyVersion?: PushBodyVersion;
  guard: SsrfGuard;
  signer?: PushJwtSigner;
  /** response bytes read before the connection is dropped; the body is never used */
  maxResponseBytes?: number;
  /** with tracing on, the delivery's span: the request carries its `traceparent` */
  trace?: Context | undefined;
}

export interface WebhookResult {
  ok: boolean;
  status?: number;
  /** whether another attempt could succeed */
  retryable: boolean;
  /** short, shown to the task's owner with the delivery; never contains credentials */
  error?: string;
  /** why, for the server log only: what the webhook's host is or resolves to */
  detail?: string;
}

export function taskIdOf(body: StreamResponse): string | undefined {
  if ('task' in body) return body.task.id;
  if ('statusUpdate' in body) return body.statusUpdate.taskId;
  if ('artifactUpdate' in body) return body.artifactUpdate.taskId;
  return body.message.taskId;
}

/** Retry classification of an HTTP status: 408 and 429 say "later", other 4xx say "never". */
export function classifyStatus(status: number): WebhookResult {
  if (status >= 200 && status < 300) return { ok: true, status, retryable: false };
  if (status >= 300 && status < 400) return { ok: false, status, retryable: false, error: `HTTP ${status}: redirect not followed` };
  const retryable = status >= 500 || status === 408 || status === 429;
  return { ok: false, status, retryable, error: `HTTP ${status}` };
}

export async function sendWebhook(config: TaskPushNotificationConfig, body: StreamResponse | object, opts: SendWebhookOptions): Promise<WebhookResult> {
  const legacy = opts.bodyVersion !== undefined && opts.bodyVersion !== '1.0';
  let target: { url: URL; addresses: string[] };
  try {
    target = await opts.guard.check(config.url);
  } catch (err) {
    if (!(err instanceof SsrfRejectedError)) throw err;
    // The owner reads a delivery's error (the console's task page): what the host is or resolves to
    // stays in `detail`, for the server log, as at registration (webhook-check.ts). A name DNS
    // refuses now (it does not resolve, or resolves inside) is retried either way, so neither the
    // text nor the retries tell the owner which (issue 25).
    if (err.fromDns) return { ok: false, retryable: true, error: WEBHOOK_REFUSED, detail: err.reason };
    if (err.kind === 'hostname' || err.kind === 'address') return { ok: false, retryable: false, error: WEBHOOK_REFUSED, detail: err.reason };
    return { ok: false, retryable: err.retryable, error: err.reason };
  }

  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  const headers: Record<string, string> = {
    'Content-Type': legacy ? 'application/json' : PUSH_CONTENT_TYPE,
    'Content-Length': String(bytes.length),
    ...(legacy ? {} : { 'A2A-Version': A2A_VERSION }),
    'User-Agent': 'agentport-push',
  };
  if (config.authentication) {
    const { scheme, credentials } = config.authentication;
    headers.Authorization = credentials ? `${scheme} ${credentials}` : scheme;
  }
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  if (opts.signer) {
    try {
      headers[NOTIFICATION_JWT_HEADER] = await opts.signer.sign({
        audience: config.url,
        taskId: config.taskId ?? (legacy ? undefined : taskIdOf(body as StreamResponse)) ?? '',
        body: bytes,
      });
    } catch {
      return { ok: false, retryable: true, error: 'signing the notification JWT failed' };
    }
  }
  for (const [name, value] of Object.entries(headers)) {
    try {
      http.validateHeaderValue(name, value);
    } catch {
      // A CR/LF in a client-supplied token would otherwise split the request; it will never pass.
      return { ok: false, retryable: false, error: `invalid ${name} header value in push config` };
    }
  }

  return post(target.url, target.addresses, headers, bytes, opts);
}

function post(url: URL, addresses: string[], headers: Record<string, string>, bytes: Buffer, opts: SendWebhookOptions): Promise<WebhookResult> {
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    let fromStatus: WebhookResult | undefined;
    const finish = (result: WebhookResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };

    const req = pinnedRequest({ url, addresses }, { method: 'POST', headers, trace: opts.trace }, (res) => {
      fromStatus = classifyStatus(res.statusCode ?? 0);
      const decided = fromStatus;
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxResponseBytes) {
          res.destroy();
          finish(decided);
        }
      });
      res.on('end', () => finish(decided));
      res.on('error', () => finish(decided));
      res.on('close', () => finish(decided));
    });

    // One deadline over connect, request, status and body drain.
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, opts.timeoutMs);

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (fromStatus) return finish(fromStatus);
      if (timedOut) return finish({ ok: false, retryable: true, error: `timed out after ${opts.timeoutMs} ms` });
      finish({ ok: false, retryable: true, error: `connection failed: ${err.code ?? err.message}` });
    });
    req.end(bytes);
  });
}

/**
 * Fetching Client ID Metadata Documents: the client chose the URL, so every fetch goes through the
 * SSRF guard (src/net/ssrf-guard.ts: https only, no credentials, no private, loopback, link-local
 * or metadata addresses) and connects only to the addresses it approved through the pinned client
 * (DNS pinning, so a second resolution cannot swap in an internal address). oidc-provider adds the time cap
 * (2.5 s), the size cap (5 KiB, `fetchResponseBodyLimits`) and the cache (Cache-Control, 30 s–1 day);
 * the body is cut here at the same 5 KiB, before it is ever held whole, and failures are remembered
 * for 30 s.
 *
 * `allowLoopbackHosts` and `trustedCaFile` exist for tests (a local HTTPS server with a
 * self-signed CA) and private PKI; neither is on by default.
 */
import { readFileSync } from 'node:fs';
import { SsrfGuard, SsrfRejectedError, pinnedRequest } from '../../net/index.js';

/** oidc-provider's own cap (`fetchResponseBodyLimits`); a larger document is refused here, unread */
const MAX_BYTES = 5 * 1024;
/**
 * A refused or failed URL is not fetched again for this long: oidc-provider may resolve a client
 * twice while answering one request, and an attacker should not get one outbound fetch per try.
 */
const FAILURE_TTL_MS = 30_000;

export interface MetadataDocumentFetch {
  /** oidc-provider's `allowFetch`: false when the URL is refused before any connection */
  allowed(clientId: string): Promise<boolean>;
  /** oidc-provider's `fetch` */
  fetch(url: string | URL, init?: { method?: string; headers?: HeadersInit; signal?: AbortSignal }): Promise<Response>;
}

export function createMetadataDocumentFetch(o: { allowLoopbackHosts: boolean; trustedCaFile?: string }): MetadataDocumentFetch {
  const guard = new SsrfGuard({ allow: o.allowLoopbackHosts ? ['127.0.0.0/8', '::1/128', 'localhost'] : [], label: 'client metadata document URL' });
  const ca = o.trustedCaFile ? readFileSync(o.trustedCaFile, 'utf8') : undefined;
  const failed = new Map<string, { until: number; error: Error }>();
  const remember = (url: string, error: Error): Error => {
    if (failed.size >= 1000) failed.delete(failed.keys().next().value!);
    failed.set(url, { until: Date.now() + FAILURE_TTL_MS, error });
    return error;
  };

  return {
    async allowed(clientId) {
      try {
        await guard.check(clientId);
        return true;
      } catch (err) {
        if (err instanceof SsrfRejectedError) return false;
        throw err;
      }
    },

    async fetch(url, init = {}) {
      const key = String(url);
      const known = failed.get(key);
      if (known && known.until > Date.now()) throw known.error;
      // Checked again at connect time: the name may resolve differently now than in allowed().
      const target = await guard.check(key);
      const response = await new Promise<Response>((resolve, reject) => {
        const req = pinnedRequest(
          target,
          {
            method: init.method ?? 'GET',
            headers: Object.fromEntries(new Headers(init.headers).entries()),
            ...(ca ? { ca: [ca] } : {}),
            ...(init.signal ? { signal: init.signal } : {}),
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              size += c.length;
              if (size > MAX_BYTES) {
                res.destroy(new Error('client metadata document is too large'));
                return;
              }
              chunks.push(c);
            });
            res.on('error', reject);
            res.on('end', () => {
              const headers = new Headers();
              for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
              const status = res.statusCode ?? 502;
              resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
            });
          },
        );
        req.on('error', reject);
        req.end();
      }).catch((err: unknown) => {
        throw remember(key, err instanceof Error ? err : new Error(String(err)));
      });
      if (response.status !== 200) throw remember(key, new Error(`client metadata document answered HTTP ${response.status}`));
      return response;
    },
  };
}

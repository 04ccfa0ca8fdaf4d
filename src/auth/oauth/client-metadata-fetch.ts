/**
 * Fetching Client ID Metadata Documents: the client chose the URL, so every fetch goes through the
 * push SSRF guard (src/core/push/ssrf-guard.ts: https only, no credentials, no private, loopback,
 * link-local or metadata addresses) and connects only to the addresses it approved (DNS pinning,
 * so a second resolution cannot swap in an internal address). oidc-provider adds the time cap
 * (2.5 s), the size cap (5 KiB, `fetchResponseBodyLimits`) and the cache (Cache-Control, 30 s–1 day);
 * the body is cut here at 64 KiB as well, before it is ever held whole.
 *
 * `allowLoopbackHosts` and `trustedCaFile` exist for tests (a local HTTPS server with a
 * self-signed CA) and private PKI; neither is on by default.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { SsrfGuard, pinnedLookup, SsrfRejectedError } from '../../core/push/ssrf-guard.js';

const MAX_BYTES = 64 * 1024;

export interface MetadataDocumentFetch {
  /** oidc-provider's `allowFetch`: false when the URL is refused before any connection */
  allowed(clientId: string): Promise<boolean>;
  /** oidc-provider's `fetch` */
  fetch(url: string | URL, init?: { method?: string; headers?: HeadersInit; signal?: AbortSignal }): Promise<Response>;
}

export function createMetadataDocumentFetch(o: { allowLoopbackHosts: boolean; trustedCaFile?: string }): MetadataDocumentFetch {
  const guard = new SsrfGuard({ allow: o.allowLoopbackHosts ? ['127.0.0.0/8', '::1/128', 'localhost'] : [] });
  const ca = o.trustedCaFile ? readFileSync(o.trustedCaFile, 'utf8') : undefined;

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
      // Checked again at connect time: the name may resolve differently now than in allowed().
      const { url: target, addresses } = await guard.check(String(url));
      return new Promise<Response>((resolve, reject) => {
        const req = request(
          target,
          {
            method: init.method ?? 'GET',
            headers: Object.fromEntries(new Headers(init.headers).entries()),
            lookup: pinnedLookup(addresses),
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
      });
    },
  };
}

/**
 * A reverse proxy on loopback (node:http), in front of a server on `targetPort`, that serves it
 * at `https?://127.0.0.1:<port><prefix>` as nginx would:
 * - `strip: true`: `location /agentport/ { proxy_pass http://backend/; }`, the prefix removed;
 * - `strip: false`: `location /agentport/ { proxy_pass http://backend; }`, the path passed on as is;
 * - `rootWellKnown: true`: also the RFC 8414 / RFC 9728 §3.1 documents of an issuer or resource with
 *   a path, which live at the origin's root (`/.well-known/oauth-authorization-server/agentport`),
 *   passed on unchanged (docs/deploy.md). Anything else is the proxy's own 404.
 * Host is kept (nginx: `proxy_set_header Host $host`).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReverseProxy {
  /** the public URL: the proxy's origin and the prefix */
  url: string;
  /** every path forwarded, as the server received it (without the query) */
  forwarded: string[];
  /** every path the proxy refused with its own 404 */
  refused: string[];
  stop(): Promise<void>;
}

const ROOT_WELL_KNOWN = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource'];

export async function startReverseProxy(o: { targetPort: number; prefix: string; strip: boolean; rootWellKnown?: boolean }): Promise<ReverseProxy> {
  const forwarded: string[] = [];
  const refused: string[] = [];
  const pathOf = (url: string): string | undefined => {
    if (o.prefix === '') return url;
    if (url.startsWith(`${o.prefix}/`)) return o.strip ? url.slice(o.prefix.length) : url;
    if (o.rootWellKnown && ROOT_WELL_KNOWN.some((w) => url.startsWith(`${w}${o.prefix}`))) return url;
    return undefined;
  };
  const proxy: Server = createServer((req, res) => {
    const path = pathOf(req.url ?? '/');
    if (path === undefined) {
      refused.push((req.url ?? '/').split('?')[0]!);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not proxied');
      return;
    }
    forwarded.push(path.split('?')[0]!);
    const out = request({ host: '127.0.0.1', port: o.targetPort, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${o.prefix}`,
    forwarded,
    refused,
    async stop() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/**
 * The web console's built files (`console/` built by Vite into dist/console, shipped in the
 * package) at `/console/`. Read once at start into memory (a few files, tens of KB). Hashed assets
 * are cached for a year (`immutable`); index.html is revalidated every time, so a new release is
 * picked up on the next load. Every answer carries the console's CSP: scripts and styles from this
 * origin only, nothing inline, calls to this origin only, never framed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginCallback, FastifyReply } from 'fastify';

/** dist/console beside src/ and dist/ alike: this file is three levels below the package root in both. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface Asset {
  body: Buffer;
  type: string;
  cacheControl: string;
}

export type ConsoleAssets = ReadonlyMap<string, Asset>;

/** The built files by their path below the console (`index.html`, `assets/index-1a2b.js`); undefined when the console was not built. */
export function loadConsoleAssets(dir: string = BUILT_CONSOLE_DIR): ConsoleAssets | undefined {
  if (!existsSync(path.join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const name = path.relative(dir, file).split(path.sep).join('/');
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    // Vite names every file under assets/ by its content hash: a changed file is a new URL.
    const cacheControl = name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    if (name !== 'index.html' && !name.startsWith('assets/')) continue;
    assets.set(name, { body: readFileSync(file), type, cacheControl });
  }
  return assets;
}

function send(reply: FastifyReply, asset: Asset): FastifyReply {
  return reply.headers({ 'Content-Type': asset.type, 'Cache-Control': asset.cacheControl, 'Content-Security-Policy': CONSOLE_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' }).send(asset.body);
}

/** A Fastify plugin: `GET /console` (to `console/`), `/console/` (the page) and `/console/assets/*` (everything it loads). */
export function consoleAssetRoutes(assets: ConsoleAssets | undefined, notFound: (reply: FastifyReply, message: string) => FastifyReply): FastifyPluginCallback {
  return (app, _opts, done) => {
    const serve = (reply: FastifyReply, name: string) => {
      if (!assets) return notFound(reply, 'The console is not built: run npm run build');
      const asset = assets.get(name === '' ? 'index.html' : name);
      return asset ? send(reply, asset) : notFound(reply, `No console file ${name}`);
    };
    app.get('/console', (req, reply) => {
      // Relative asset URLs need the trailing slash; a relative Location keeps any path prefix of a proxy.
      const [pathname, query] = req.url.split('?', 2) as [string, string | undefined];
      if (!pathname.endsWith('/'))
        return reply
          .code(308)
          .header('Location', `console/${query === undefined ? '' : `?${query}`}`)
          .send();
      return serve(reply, '');
    });
    app.get<{ Params: { file: string } }>('/console/assets/:file', (req, reply) => serve(reply, `assets/${req.params.file}`));
    done();
  };
}

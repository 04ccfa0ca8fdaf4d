/** `GET /openapi.json` and the reference page `GET /docs` (both public: they describe, not grant). */
import type { FastifyPluginCallback } from 'fastify';
import { openApiDocument } from './document.js';
import { referencePage } from './reference-page.js';

export function openApiRoutes(o: { version: string }): FastifyPluginCallback {
  // Built once: the document depends on nothing but the version.
  const doc = openApiDocument(o.version);
  const docJson = JSON.stringify(doc);
  const page = referencePage(doc);
  return (app, _opts, done) => {
    app.get('/openapi.json', (_req, reply) => reply.header('Cache-Control', 'public, max-age=300').type('application/json').send(docJson));
    app.get('/docs', (_req, reply) =>
      reply
        .headers({ 'Cache-Control': 'public, max-age=300', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'X-Content-Type-Options': 'nosniff' })
        .type('text/html; charset=utf-8')
        .send(page),
    );
    done();
  };
}

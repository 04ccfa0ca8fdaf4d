/**
 * A local HTTPS server with a self-signed certificate (made by openssl for this run) that serves
 * Client ID Metadata Documents; the server under test is configured to trust the certificate.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface DocumentServer {
  origin: string;
  caFile: string;
  /** path → [status, body, headers] */
  serve(path: string, body: string, status?: number, headers?: Record<string, string>): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentport-cimd-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  const routes = new Map<string, { status: number; body: string; headers: Record<string, string> }>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const p = req.url ?? '/';
    counts.set(p, (counts.get(p) ?? 0) + 1);
    const r = routes.get(p);
    if (!r) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers }).end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    caFile: cert,
    serve: (p, body, status = 200, headers = {}) => void routes.set(p, { status, body, headers }),
    hits: (p) => counts.get(p) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

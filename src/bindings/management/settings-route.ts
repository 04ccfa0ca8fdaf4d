/**
 * `GET /api/v1/settings` (scope `admin`): the resolved configuration as the server runs it, one
 * row per value (`server.port`, `agents[0].id`), each with where it came from (flag, env, file,
 * default) and with every secret redacted. Secrets are found the way the log scrubber finds them
 * (configSecrets: secret-named keys, URL passwords, credential headers), and a value holding one is
 * replaced whole, wherever it appears; URLs also lose their userinfo password.
 */
import type { FastifyPluginCallback } from 'fastify';
import { redactUrl, sourceFile, sourceOf, type Config, type ValueSource } from '../../config/index.js';
import { configSecrets } from '../../observability/logging/config-secrets.js';
import { requireAdmin, type AdminGuardDeps } from './admin-guard.js';

export const REDACTED = '[redacted]';

type Scalar = string | number | boolean | null;

export interface Setting {
  key: string;
  value: Scalar | Scalar[];
  source: ValueSource;
}

const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function keyOf(path: Array<string | number>): string {
  return path.reduce<string>((out, s) => (typeof s === 'number' ? `${out}[${s}]` : /^[A-Za-z_$][\w$-]*$/.test(s) ? (out ? `${out}.${s}` : s) : `${out}[${JSON.stringify(s)}]`), '');
}

/** One row per scalar, or per list of scalars; functions and undefined are not configuration. */
export function settingsOf(config: Config): Setting[] {
  const secrets = configSecrets(config).filter((s) => s.length > 0);
  const redact = (v: Scalar): Scalar => {
    if (typeof v !== 'string') return v;
    if (secrets.some((s) => v.includes(s))) return REDACTED;
    return v.includes('://') && v.includes('@') ? redactUrl(v, v) : v;
  };
  const rows: Setting[] = [];
  const visit = (value: unknown, path: Array<string | number>) => {
    if (value === undefined || typeof value === 'function') return;
    if (isScalar(value)) {
      rows.push({ key: keyOf(path), value: redact(value), source: sourceOf(config, path) });
    } else if (Array.isArray(value) && value.every(isScalar)) {
      rows.push({ key: keyOf(path), value: value.map(redact), source: sourceOf(config, path) });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...path, i]));
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) visit(v, [...path, k]);
    }
  };
  visit(config, []);
  return rows;
}

/** A Fastify plugin: `app.register(settingsRoute(deps))`. */
export function settingsRoute(d: AdminGuardDeps & { config: () => Config }): FastifyPluginCallback {
  return (app, _opts, done) => {
    app.get('/api/v1/settings', async (req, reply) => {
      if (!(await requireAdmin(d, req, reply))) return reply;
      reply.header('Cache-Control', 'no-store');
      const config = d.config();
      return { file: sourceFile(config) ?? null, settings: settingsOf(config) };
    });
    done();
  };
}

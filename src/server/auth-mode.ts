/**
 * `auth.mode: none` turns authorization off: every caller may do everything. Fine on a laptop,
 * dangerous anywhere else, so it is refused on a non-loopback host unless forced
 * (`--allow-insecure` / `auth.allowInsecureNone`), and always announced loudly.
 */
import type { Config } from '../config/index.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

export class InsecureAuthModeError extends Error {
  override readonly name = 'InsecureAuthModeError';

  constructor(readonly detail: { problem: string; fix: string }) {
    super(`auth.mode none ${detail.problem}; ${detail.fix}`);
  }
}

export function checkAuthMode(config: Config, log: { warn(msg: string): void }): void {
  if (config.auth.mode !== 'none') return;
  const hosts = [config.server.host, ...(config.server.grpc.enabled ? [config.server.grpc.host] : [])];
  const exposed = [...new Set(hosts.filter((h) => !isLoopbackHost(h)))];
  if (exposed.length && !config.auth.allowInsecureNone) {
    throw new InsecureAuthModeError({
      problem: `turns authentication off, yet the server would listen on ${exposed.join(', ')}, which is not loopback: anyone who can reach it may do everything`,
      fix: 'listen on 127.0.0.1 (--host), turn authentication on (drop --auth none), or pass --allow-insecure (auth.allowInsecureNone: true) if you really mean it',
    });
  }
  log.warn(
    `AUTHENTICATION IS OFF (auth.mode: none): every caller may do everything, including the management API${exposed.length ? ` — and the server listens on ${exposed.join(', ')}` : ''}. Use only for local experiments and tests.`,
  );
}

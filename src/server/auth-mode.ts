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
}

export function checkAuthMode(config: Config, log: { warn(msg: string): void }): void {
  if (config.auth.mode !== 'none') return;
  const hosts = [config.server.host, ...(config.server.grpc.enabled ? [config.server.grpc.host] : [])];
  const exposed = hosts.filter((h) => !isLoopbackHost(h));
  if (exposed.length && !config.auth.allowInsecureNone) {
    throw new InsecureAuthModeError(
      `auth.mode is none (no authentication) but the server would listen on ${exposed.join(', ')}, which is not loopback; ` +
        'listen on 127.0.0.1, turn authentication on, or pass --allow-insecure (auth.allowInsecureNone: true) if you really mean it',
    );
  }
  log.warn(
    `AUTHENTICATION IS OFF (auth.mode: none): every caller may do everything, including the management API${exposed.length ? ` — and the server listens on ${exposed.join(', ')}` : ''}. Use only for local experiments and tests.`,
  );
}

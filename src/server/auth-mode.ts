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

  constructor(readonly detail: { problem: string; fix: string; subject?: string }) {
    super(`${detail.subject ?? 'auth.mode none'} ${detail.problem}; ${detail.fix}`);
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

/**
 * `auth.oauth.tokenLogin.autoApprove` signs every authorization request in with one token: whoever
 * reaches the server gets that token's rights. Staging only, refused on a non-loopback host
 * unless `allowPublicBind`, and always announced loudly.
 */
export function checkTokenAutoApprove(config: Config, log: { warn(msg: string): void }): void {
  const auto = config.auth.oauth.enabled ? config.auth.oauth.tokenLogin.autoApprove : undefined;
  if (!auto) return;
  const exposed = !isLoopbackHost(config.server.host);
  if (exposed && !auto.allowPublicBind) {
    throw new InsecureAuthModeError({
      subject: 'auth.oauth.tokenLogin.autoApprove',
      problem: `would approve every sign-in on ${config.server.host}, which is not loopback: anyone who can reach it gets the configured token's rights`,
      fix: 'listen on 127.0.0.1 (--host), remove autoApprove, or set auth.oauth.tokenLogin.autoApprove.allowPublicBind: true if this is a staging server you mean to open',
    });
  }
  log.warn(
    `AUTO-APPROVE IS ON (auth.oauth.tokenLogin.autoApprove): every authorization request is signed in with the configured token and approved without a page${exposed ? ` — and the server listens on ${config.server.host}` : ''}. Use only for staging.`,
  );
}

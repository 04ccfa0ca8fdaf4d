/**
 * oidc-provider is imported only when the authorization server is enabled, on the first OAuth
 * request, so a server with OAuth off never loads it.
 *
 * oidc-provider 9 warns "Unsupported runtime" on every Node older than the `Jod` LTS (22) at
 * import time. It is a codename comparison only (lib/index.js); the code uses nothing Node 20
 * lacks, and our tests run it on Node 20. Exactly that one line is dropped while the module is
 * evaluated; any other warning passes through. docs/decisions/0008-oauth-authorization-server.md.
 */
type ProviderModule = typeof import('oidc-provider');

const UNSUPPORTED_RUNTIME = 'oidc-provider WARNING: Unsupported runtime.';

let loaded: Promise<ProviderModule> | undefined;

export function loadOidcProvider(): Promise<ProviderModule> {
  loaded ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].replace(/\x1b\[[0-9;]*m/g, '').startsWith(UNSUPPORTED_RUNTIME)) return;
      warn(...args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loaded;
}

/** Who is calling. Authentication produces one; the core authorizes every action against it. */
export interface Principal {
  /** stable subject id; tasks are owned by it */
  subject: string;
  authenticated: boolean;
  clientId?: string;
  scopes: readonly string[];
  usecase?: string;
  tenant?: string;
  /** the API key used: its id (`ap_<keyId>_…`), or `config:<subject>` for a key in the config file (usage records, quotas) */
  keyId?: string;
  /** the OAuth grant the credential stands on (an own access token's `grant_id`, a console session's) */
  grantId?: string;
}

export const ANONYMOUS: Principal = Object.freeze({ subject: 'anonymous', authenticated: false, scopes: [] });

/** A caller known at once, or its promise, as a promise: for those who hand authentication's answer on as one. */
export function promisedPrincipal(answer: Principal | Promise<Principal>): Promise<Principal> {
  return answer instanceof Promise ? answer : Promise.resolve(answer);
}

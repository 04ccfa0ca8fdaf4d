/**
 * The secrets a configuration holds, for the log scrubber to replace by value wherever they show
 * up (redaction.ts). Found by walking the whole configuration rather than listing its keys, so a
 * secret added to the schema later is covered without anyone remembering this file.
 */

/** Keys whose string values are secrets (`auth.apiKeys[].key`, `clientSecret`, `autoApprove.token`, an agent's `llm.apiKey`, …). */
const SECRET_KEY = /^(key|secret|password|token|credentials|apiKey)$|Secret$|Password$|Token$|ApiKey$/;

const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|signature|password|credential/i;

export function configSecrets(config: object): string[] {
  const found = new Set<string>();
  walk(config, undefined, found, 0);
  return [...found];
}

function walk(value: unknown, key: string | undefined, found: Set<string>, depth: number): void {
  if (depth > 12 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (key !== undefined && SECRET_KEY.test(key)) found.add(value);
    const password = urlPassword(value);
    if (password) {
      found.add(password);
      try {
        found.add(decodeURIComponent(password));
      } catch {
        // a malformed escape: the encoded form above is what appears
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) walk(item, key, found, depth + 1);
    return;
  }
  if (typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    // Credential headers sent to remotes and webhooks (`Authorization: Bearer …`, `X-Api-Key`).
    if (k === 'headers' && v && typeof v === 'object') {
      for (const [name, h] of Object.entries(v)) if (typeof h === 'string' && CREDENTIAL_HEADER.test(name)) found.add(h);
      continue;
    }
    walk(v, k, found, depth + 1);
  }
}

function urlPassword(text: string): string | undefined {
  if (!text.includes('@') || !text.includes('://')) return undefined;
  try {
    const { password } = new URL(text);
    return password || undefined;
  } catch {
    return undefined;
  }
}

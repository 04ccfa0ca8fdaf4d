#!/usr/bin/env node
// The image's HEALTHCHECK: exit 0 when /readyz answers 200, 1 otherwise, with the reason on stderr.
// Node rather than curl, which the slim image does not have. AGENTPORT_HEALTHCHECK_URL overrides
// the address (a config that moves server.port must move it too).
const url = process.env.AGENTPORT_HEALTHCHECK_URL || 'http://127.0.0.1:8080/readyz';
const timeoutMs = Number(process.env.AGENTPORT_HEALTHCHECK_TIMEOUT_MS || 4000);

try {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const body = await res.text();
  if (res.status === 200) process.exit(0);
  process.stderr.write(`${url}: HTTP ${res.status} ${body.slice(0, 300)}\n`);
} catch (err) {
  process.stderr.write(`${url}: ${err instanceof Error ? err.message : String(err)}\n`);
}
process.exit(1);

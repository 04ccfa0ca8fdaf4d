/** What `serve` prints to stderr: where to reach the server (why it could not start: start-failure-message.ts). */
import { isWildcardHost, redactUrl, type Config } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';
import { LOST_ADMIN_KEY_HINT } from '../server/first-start.js';

export interface BannerServer {
  urls: { http: string; grpc?: string };
  agents: ReadonlyArray<{ id: string; url: string }>;
}

/** startServer reports each agent's base URL; its card sits under it (a card URL is kept as is). */
function cardUrl(agentUrl: string): string {
  return agentUrl.endsWith('.json') ? agentUrl : `${agentUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`;
}

export function formatBanner(config: Config, server: BannerServer & { firstAdminKey?: string | undefined }): string {
  const lines = [`Agentport ${packageVersion()} is running.`, ''];
  lines.push(`  HTTP     ${server.urls.http}`);
  if (server.urls.grpc) lines.push(`  gRPC     ${server.urls.grpc}`);
  // What ChatGPT, Claude and the Inspector need; the page at / has the steps.
  lines.push(`  MCP      ${server.urls.http.replace(/\/+$/, '')}/mcp`);
  const base = server.urls.http.replace(/\/+$/, '');
  lines.push(`  Console  ${base}/console/`);
  lines.push(`  Connect  open ${base}/ in a browser, or: agentport connect claude-code${base === 'http://127.0.0.1:8080' ? '' : ` --url ${base}`}`);
  lines.push('');
  lines.push('  Agent cards');
  const width = Math.max(...server.agents.map((a) => a.id.length), 0);
  for (const agent of server.agents) lines.push(`    ${agent.id.padEnd(width)}  ${cardUrl(agent.url)}`);
  lines.push(`  Primary  ${server.urls.http.replace(/\/+$/, '')}/.well-known/agent-card.json (${config.primaryAgent})`);
  lines.push('');
  lines.push(`  Data     ${config.server.dataDir}`);
  lines.push(`  Storage  ${config.storage.driver === 'sqlite' ? `sqlite ${config.storage.file}` : `postgres ${redactUrl(config.storage.url)}`}`);
  if (config.bus.driver === 'redis') lines.push(`  Bus      redis ${redactUrl(config.bus.url)}`);
  lines.push(`  Config   ${config.file ?? 'none (built-in defaults)'}`);
  // The first start prints the admin key (first-start.ts); every later start says how to get another.
  if (config.auth.mode === 'required' && !server.firstAdminKey) lines.push(`  Keys     the admin key is printed only at the first start. ${LOST_ADMIN_KEY_HINT}`);
  if (config.server.publicUrlDerived && isWildcardHost(config.server.host)) {
    lines.push('');
    lines.push(`  Note: listening on ${config.server.host}, but cards advertise ${config.server.publicUrl};`);
    lines.push('        set server.publicUrl to the address clients should use.');
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

/** What `agentport dev` prints at start: every URL to try, per agent, and how to call them. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { packageVersion } from '../config/package-version.js';

export interface DevBannerServer {
  urls: { http: string; grpc?: string };
  agents: ReadonlyArray<{ id: string; url: string }>;
}

/**
 * How to run `agentport` from `cwd`: `npx agentport` where the project has it as a dependency
 * (node_modules/.bin), else this copy's own bin by path. A bare `npx agentport` elsewhere would
 * fetch the unrelated package of that name from the npm registry (docs/decisions/0040).
 */
export function cliCommandFor(cwd: string, binPath: string): string {
  if (existsSync(path.join(cwd, 'node_modules', '.bin', 'agentport'))) return 'npx agentport';
  const relative = path.relative(cwd, binPath);
  return `node ${relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : binPath}`;
}

export function formatDevBanner(config: Config, server: DevBannerServer, o: { watched: readonly string[]; devKey?: string; cli?: string }): string {
  const cli = o.cli ?? 'npx agentport';
  const http = server.urls.http.replace(/\/+$/, '');
  const width = Math.max(...server.agents.map((a) => a.id.length), 4);
  const lines = [`Agentport ${packageVersion()} dev mode`, ''];
  for (const agent of server.agents) {
    const pad = ' '.repeat(width);
    lines.push(`  ${agent.id.padEnd(width)}  A2A   ${agent.url}   (JSON-RPC; HTTP+JSON beneath it)`);
    lines.push(`  ${pad}  card  ${agent.url}/.well-known/agent-card.json`);
    lines.push(`  ${pad}  MCP   ${agent.url}/mcp`);
  }
  lines.push('');
  lines.push(`  MCP, every agent   ${http}/mcp`);
  lines.push(`  Console            ${http}/console/   (playground, tasks, usage)`);
  if (server.urls.grpc) lines.push(`  gRPC               ${server.urls.grpc}   (tenant = agent id)`);
  lines.push(`  Primary card       ${http}/.well-known/agent-card.json (${config.primaryAgent})`);
  lines.push(`  Config             ${config.file ?? 'none (built-in defaults)'}`);
  lines.push(`  Data               ${config.server.dataDir}`);
  lines.push('');
  const first = server.agents.find((a) => a.id !== 'table-expert') ?? server.agents[0];
  if (o.devKey) {
    lines.push('  A key for local use, valid while this process runs (scopes a2a:discover a2a:publish mcp:tools):');
    lines.push('');
    lines.push(`  KEY=${o.devKey}`);
    lines.push('');
    if (first) lines.push(`  Try: ${cli} send ${first.url} "hello" --stream --api-key "$KEY"`);
  } else if (first) {
    lines.push('  Authentication is off (--auth none).');
    lines.push(`  Try: ${cli} send ${first.url} "hello" --stream`);
  }
  lines.push('');
  if (o.watched.length) lines.push(`  Watching ${o.watched.join(', ')}: saving an agent or the config reloads it here.`);
  else lines.push('  No agentport.yaml and no agent modules: nothing to watch (agentport init makes a project).');
  lines.push('  Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

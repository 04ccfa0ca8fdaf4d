/** Resolves an agent entry of the config to its AgentDefinition: a built-in or an ES module. */
import type { AgentConfig, Config } from '../config/index.js';
import type { CallerIdentitySigner } from './remote-a2a/index.js';
import type { AgentDefinition } from './sdk/agent.js';
import type { RemoteCredentials } from './mcp-remote/index.js';
import { echoAgent } from './echo/index.js';
import { conformanceAgent } from './conformance/index.js';
import { importAgentModule } from './import-agent-module.js';

/** What a built-in needs from the rest of the configuration to build itself. */
type BuiltinFactory = (agent: AgentConfig, config: Pick<Config, 'agents' | 'baseDir' | 'server'>) => AgentDefinition | Promise<AgentDefinition>;

const BUILTINS: Record<NonNullable<AgentConfig['builtin']>, BuiltinFactory> = {
  echo: () => echoAgent,
  conformance: () => conformanceAgent,
  // Imported on demand: a server without the Table Expert never parses its modules. Options are
  // validated here (ConfigError naming agents[i].options.<key>); the data opens on first use.
  'table-expert': async (agent, config) => {
    const { tableExpertFromConfig } = await import('./table-expert/index.js');
    return tableExpertFromConfig(agent, {
      index: Math.max(
        0,
        config.agents.findIndex((a) => a.id === agent.id),
      ),
      baseDir: config.baseDir,
      dataDir: config.server.dataDir,
    });
  },
};

/** An agent module that loaded but is not an agent: `reason` completes "module <path> …". */
export class InvalidAgentModuleError extends Error {
  override readonly name = 'InvalidAgentModuleError';
  constructor(
    readonly module: string,
    readonly reason: string,
  ) {
    super(`${module} ${reason}`);
  }
}

/** What agents backed by a remote service need from the server (src/agents/mcp-remote). */
export interface AgentLoadContext {
  log: { debug(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  version: string;
  /** signs the caller's identity for remotes (`remote` and `mcp`) with `auth: { kind: signed-identity }` (docs/auth.md) */
  callerIdentity?: CallerIdentitySigner;
  /** the users' own tokens for remotes with `auth: oauth` (ADR 0035) */
  remoteCredentials?: RemoteCredentials;
}

/** `fresh`: evaluate a module agent's code again (dev-mode reloads; see import-agent-module.ts). */
export async function loadAgentDefinition(agent: AgentConfig, config: Pick<Config, 'agents' | 'baseDir' | 'server'>, context?: AgentLoadContext, opts: { fresh?: boolean } = {}): Promise<AgentDefinition> {
  if (agent.builtin) return BUILTINS[agent.builtin](agent, config);
  if (agent.remote) {
    const { remoteA2AAgent } = await import('./remote-a2a/index.js');
    return remoteA2AAgent(agent, context?.log ?? { warn() {} }, context?.callerIdentity, context?.remoteCredentials);
  }
  if (agent.llm) {
    const { llmAgent } = await import('./llm/index.js');
    return llmAgent(agent, context?.log ?? { debug() {}, warn() {} });
  }
  if (agent.mcp) {
    const { mcpRemoteAgent } = await import('./mcp-remote/index.js');
    return mcpRemoteAgent(agent, context ?? { log: { debug() {}, warn() {} }, version: '0.0.0' });
  }
  const mod = await importAgentModule(agent.module!, opts);
  const def = (mod.default ?? mod.agent) as AgentDefinition | undefined;
  if (!def || typeof def !== 'object' || typeof def.execute !== 'function' || !def.card || typeof def.card !== 'object') {
    throw new InvalidAgentModuleError(agent.module!, "must export an AgentDefinition (defineAgent({ card, execute })) as default or as 'agent'");
  }
  // Checked here so that a card without skills is named, not a TypeError while building cards.
  if (!Array.isArray(def.card.skills)) {
    throw new InvalidAgentModuleError(agent.module!, 'exports an agent whose card has no skills list (card.skills must be an array, [] for none)');
  }
  return def;
}

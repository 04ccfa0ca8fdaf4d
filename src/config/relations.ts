/**
 * Rules that span several keys. They run on the raw input next to schema validation (not after it),
 * so a file with a bad port and a duplicate agent id reports both at once; each rule skips values
 * whose shape is wrong, which the schema reports on its own.
 */
import type { ConfigProblem } from './errors.js';
import { BUILTIN_AGENTS, DEFAULT_AGENTS } from './schema.js';

// Generated from the schema's lists, so a new built-in cannot be missing from the message.
const NO_KIND_MESSAGE = `set one of builtin (${BUILTIN_AGENTS.join(' | ')}), module (path to an ES module exporting an AgentDefinition), mcp ({ url } of a remote MCP server), remote ({ cardUrl } of a remote A2A agent) or llm ({ provider, model, instructions } of a model whose tools are hosted agents)`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function checkRelations(input: unknown): ConfigProblem[] {
  if (!isRecord(input)) return [];
  const problems: ConfigProblem[] = [...vaultProblems(input)];
  const agentIds: string[] = [];

  if (Array.isArray(input.agents)) {
    input.agents.forEach((agent, index) => {
      if (!isRecord(agent)) return;
      const kinds = (['builtin', 'module', 'mcp', 'remote', 'llm'] as const).filter((k) => agent[k] !== undefined);
      if (kinds.length !== 1) {
        problems.push({
          path: `agents[${index}]`,
          message:
            kinds.length === 0
              ? NO_KIND_MESSAGE
              : kinds.includes('llm')
                ? `set either llm or ${kinds.filter((k) => k !== 'llm').join(' and ')}, not both`
                : kinds.includes('remote')
                  ? `set either remote or ${kinds.filter((k) => k !== 'remote').join(' and ')}, not both`
                  : kinds.includes('mcp')
                    ? `set either mcp or ${kinds.filter((k) => k !== 'mcp').join(' and ')}, not both`
                    : 'set either builtin or module, not both',
        });
      }
      if (typeof agent.id !== 'string') return;
      if (agentIds.includes(agent.id)) {
        problems.push({ path: `agents[${index}].id`, message: `duplicate agent id (got "${agent.id}"; ids must be unique)` });
      }
      agentIds.push(agent.id);
    });
  }

  // An LLM agent's tools are agents of this file (a tool that is the agent itself would loop).
  if (Array.isArray(input.agents)) {
    input.agents.forEach((agent, index) => {
      if (!isRecord(agent) || !isRecord(agent.llm) || !Array.isArray(agent.llm.tools)) return;
      agent.llm.tools.forEach((tool, t) => {
        if (typeof tool !== 'string') return;
        if (tool === agent.id) problems.push({ path: `agents[${index}].llm.tools[${t}]`, message: 'an agent cannot be its own tool' });
        else if (!agentIds.includes(tool)) problems.push({ path: `agents[${index}].llm.tools[${t}]`, message: `no agent has this id (got "${tool}"; agents: ${agentIds.join(', ')})` });
      });
    });
  }

  if (typeof input.primaryAgent === 'string' && input.primaryAgent.trim() !== '') {
    const known = Array.isArray(input.agents) ? agentIds : DEFAULT_AGENTS.map((a) => a.id);
    const wanted = input.primaryAgent.trim();
    if (!known.includes(wanted)) {
      problems.push({
        path: 'primaryAgent',
        message: `no agent has this id (got "${wanted}"; agents: ${known.join(', ') || 'none'})`,
      });
    }
  }

  const auth = input.auth;
  if (isRecord(auth) && Array.isArray(auth.apiKeys)) {
    const seen = new Set<string>();
    auth.apiKeys.forEach((entry, index) => {
      if (!isRecord(entry) || typeof entry.key !== 'string') return;
      if (seen.has(entry.key)) problems.push({ path: `auth.apiKeys[${index}].key`, message: 'duplicate API key (each key must be unique)' });
      seen.add(entry.key);
    });
  }

  // Sign-in with a token verifies it against the external issuers (auth.oauth.tokenLogin).
  const oauth = isRecord(auth) ? auth.oauth : undefined;
  if (isRecord(auth) && isRecord(oauth) && Array.isArray(oauth.login) && oauth.login.includes('token') && !(Array.isArray(auth.issuers) && auth.issuers.length > 0)) {
    problems.push({ path: 'auth.oauth.login', message: 'token sign-in verifies tokens of auth.issuers: configure at least one issuer' });
  }

  return problems;
}

/**
 * A remote with `auth: oauth` keeps users' tokens in the vault, which seals them with
 * `auth.vault.keys`: a server without a key would have to keep them in clear, so it does not start.
 */
function vaultProblems(input: Record<string, unknown>): ConfigProblem[] {
  if (!Array.isArray(input.agents)) return [];
  const problems: ConfigProblem[] = [];
  const oauthAgents: string[] = [];
  input.agents.forEach((agent, index) => {
    if (!isRecord(agent)) return;
    for (const kind of ['mcp', 'remote'] as const) {
      const entry = agent[kind];
      if (!isRecord(entry) || !isRecord(entry.auth) || entry.auth.kind !== 'oauth') continue;
      if (entry.auth.clientSecret !== undefined && entry.auth.clientId === undefined) problems.push({ path: `agents[${index}].${kind}.auth.clientSecret`, message: 'needs clientId (the client the secret belongs to)' });
      oauthAgents.push(`agents[${index}].${kind}.auth`);
    }
  });
  const auth = isRecord(input.auth) ? input.auth : {};
  const vault = isRecord(auth.vault) ? auth.vault : undefined;
  if (oauthAgents.length && !(vault && Array.isArray(vault.keys) && vault.keys.length > 0)) {
    problems.push({
      path: 'auth.vault.keys',
      message: `is required by ${oauthAgents.join(', ')} (kind oauth): the users' tokens are sealed with it. Add auth.vault.keys: [{ id: k1, secret: \${AGENTPORT_VAULT_KEY} }] with 32 random bytes in base64 (openssl rand -base64 32)`,
    });
  }
  return problems;
}

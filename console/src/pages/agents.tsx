/**
 * Agents: every agent the user may see, with its card, and a playground to chat with one over A2A
 * (streaming) and call its MCP tools. `#/agents/{agent}` opens the playground for an agent,
 * `#/agents/{agent}/{contextId}` one of its conversations.
 */
import { getJson } from '../api.js';
import { listTools } from '../mcp-client.js';
import { McpPlayground } from '../mcp-playground.js';
import { A2APlayground } from '../playground/a2a-playground.js';
import { conversationHref } from '../playground/conversation.js';
import { Status, useLoad } from '../ui.js';

interface AgentEntry {
  id: string;
  name: string;
  description: string;
  url: string;
}

interface Card {
  name: string;
  description: string;
  version?: string;
  supportedInterfaces?: Array<{ url: string; protocolBinding?: string; protocolVersion?: string }>;
  capabilities?: { streaming?: boolean; pushNotifications?: boolean };
  skills?: Array<{ id: string; name: string; description?: string; tags?: string[] }>;
  securitySchemes?: Record<string, unknown>;
  signatures?: Array<{ protected?: string }>;
}

/**
 * Who signed the card, in the CLI's words (`agentport card`, src/protocol/a2a/card/signing-keys.ts):
 * the distinct key ids, since one key signs two payload forms and so makes two signatures.
 */
function signedWording(signatures: Array<{ protected?: string }> | undefined): string {
  if (!signatures?.length) return 'no';
  const kids: string[] = [];
  for (const s of signatures) {
    try {
      const header = JSON.parse(atob((s.protected ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { kid?: unknown };
      if (typeof header.kid === 'string' && !kids.includes(header.kid)) kids.push(header.kid);
    } catch {
      // a header that is not base64url JSON names no key
    }
  }
  return kids.length === 0 ? 'yes' : `yes, by key${kids.length > 1 ? 's' : ''} ${kids.join(', ')}`;
}

function AgentCard({ agent, onChat, chatting }: { agent: AgentEntry; onChat: () => void; chatting: boolean }) {
  const card = useLoad(() => getJson<Card>(`api/v1/agents/${encodeURIComponent(agent.id)}/card`), [agent.id]);
  // Tool names from the agent's own MCP endpoint; without MCP access the card just says so.
  const tools = useLoad(() => listTools(agent.id).then((t) => t.map((x) => x.name)), [agent.id]);
  const headingId = `agent-${agent.id}`;
  return (
    <article class="card" aria-labelledby={headingId}>
      <h2 id={headingId} class="card-title">
        {agent.name} <code>{agent.id}</code>
      </h2>
      <p>{agent.description}</p>
      <Status loaded={card}>
        {(c) => (
          <dl class="facts">
            <dt>Interfaces</dt>
            <dd>{(c.supportedInterfaces ?? []).map((i) => `${i.protocolBinding ?? '?'} ${i.protocolVersion ?? ''}`.trim()).join(', ') || agent.url}</dd>
            <dt>Skills</dt>
            <dd>{(c.skills ?? []).map((s) => s.name).join(', ') || 'none'}</dd>
            <dt>Security</dt>
            <dd>{Object.keys(c.securitySchemes ?? {}).join(', ') || 'none'}</dd>
            <dt>Signed</dt>
            <dd id={`signed-${agent.id}`}>{signedWording(c.signatures)}</dd>
            <dt>MCP tools</dt>
            <dd class="mcp-tools">{tools.data ? tools.data.join(', ') || 'none' : tools.error ? 'not available to you' : '…'}</dd>
          </dl>
        )}
      </Status>
      <button type="button" onClick={onChat} aria-pressed={chatting}>
        Chat with {agent.name}
      </button>
    </article>
  );
}

export function AgentsPage({ agentId, contextId }: { agentId: string | undefined; contextId: string | undefined }) {
  const agents = useLoad(() => getJson<{ agents: AgentEntry[] }>('api/v1/agents'), []);
  return (
    <>
      <h1>Agents</h1>
      <Status loaded={agents}>
        {(a) => {
          const chosen = a.agents.find((x) => x.id === agentId);
          return (
            <>
              <div class="cards">
                {a.agents.map((agent) => (
                  <AgentCard
                    key={agent.id}
                    agent={agent}
                    chatting={agentId === agent.id}
                    onChat={() => {
                      location.hash = conversationHref(agent.id);
                    }}
                  />
                ))}
              </div>
              {agentId && !chosen && <p class="problem">No agent {agentId} is visible to you.</p>}
              {chosen && <A2APlayground key={chosen.id} agent={chosen} contextId={contextId} />}
              {chosen && <McpPlayground key={`mcp-${chosen.id}`} agentId={chosen.id} />}
            </>
          );
        }}
      </Status>
    </>
  );
}

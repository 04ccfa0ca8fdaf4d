/** The agents this server hosts, each with its resolved capabilities and cards. */
import type { AgentDefinition } from './agent-definition.js';
import type { AgentCard } from '../../protocol/a2a/types.js';

export interface RegisteredAgent {
  id: string;
  /** the agent's A2A base URL (JSON-RPC endpoint, HTTP+JSON root) */
  baseUrl: string;
  definition: AgentDefinition;
  streaming: boolean;
  pushNotifications: boolean;
  extendedCard: boolean;
  /** false only with `auth.anonymousExtendedCard` (the TCK profile); spec §13.3 requires authentication */
  extendedCardRequiresAuth: boolean;
  supportedExtensions: readonly string[];
  requiredExtensions: readonly string[];
  /** built and signed by the server assembly, which knows the interfaces */
  publicCard: AgentCard;
  /** the card for requests without `A2A-Version`: v1.0 plus v0.3 members (a2a-v03/dual-card.ts); absent = publicCard */
  headerlessCard?: AgentCard;
  extendedAgentCard?: AgentCard;
}

/** An agent came or went; faces that list agents (MCP tools and resources) announce it. */
export interface AgentRegistryChange {
  kind: 'added' | 'removed' | 'updated';
  agentId: string;
}

export class AgentRegistry {
  private readonly agents = new Map<string, RegisteredAgent>();
  private readonly listeners = new Set<(change: AgentRegistryChange) => void>();

  constructor(readonly primaryId: string) {}

  add(agent: RegisteredAgent): void {
    if (this.agents.has(agent.id)) throw new Error(`duplicate agent id '${agent.id}'`);
    this.agents.set(agent.id, agent);
    this.emit({ kind: 'added', agentId: agent.id });
  }

  /** Swaps in a new registration of an existing agent (its card changed: a remote MCP server's tools). */
  replace(agent: RegisteredAgent): void {
    if (!this.agents.has(agent.id)) throw new Error(`no agent '${agent.id}' to replace`);
    this.agents.set(agent.id, agent);
    this.emit({ kind: 'updated', agentId: agent.id });
  }

  /** Removes an agent; false when there was none. The primary agent cannot be removed. */
  remove(id: string): boolean {
    if (id === this.primaryId) throw new Error(`the primary agent '${id}' cannot be removed`);
    if (!this.agents.delete(id)) return false;
    this.emit({ kind: 'removed', agentId: id });
    return true;
  }

  /** Calls `listener` after every add and remove; returns the unsubscribe function. */
  onChange(listener: (change: AgentRegistryChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private emit(change: AgentRegistryChange): void {
    // A failing listener must not undo or block the change for the others.
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // listeners log their own failures
      }
    }
  }

  get(id: string): RegisteredAgent | undefined {
    return this.agents.get(id);
  }

  list(): RegisteredAgent[] {
    return [...this.agents.values()];
  }

  get primary(): RegisteredAgent {
    const a = this.agents.get(this.primaryId);
    if (!a) throw new Error(`primary agent '${this.primaryId}' is not registered`);
    return a;
  }
}

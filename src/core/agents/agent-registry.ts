/** The agents this server hosts, each with its resolved capabilities and cards. */
import type { AgentDefinition } from '../../agents/sdk/agent.js';
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
  extendedAgentCard?: AgentCard;
}

export class AgentRegistry {
  private readonly agents = new Map<string, RegisteredAgent>();

  constructor(readonly primaryId: string) {}

  add(agent: RegisteredAgent): void {
    if (this.agents.has(agent.id)) throw new Error(`duplicate agent id '${agent.id}'`);
    this.agents.set(agent.id, agent);
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

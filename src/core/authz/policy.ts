/**
 * The one authorization decision under every binding: `authorize(principal, action, target)`.
 * A2A, MCP and the management API ask it the same question in the same words, so they cannot
 * drift apart. What a caller may not see at all (a hidden agent, another usecase's agent) is not
 * refused here but reported by the caller exactly as if it did not exist (`canSeeAgent`).
 */
import type { Config } from '../../config/config.js';
import { NO_AUDIT, type AuditSink } from '../audit/audit-event.js';
import { AccessDenied } from './access-denied.js';
import { ANONYMOUS, type Principal } from './principal.js';
import { holdsAnyMcpScope, holdsScope, MCP_USECASE_SCOPE_PREFIX, SCOPES, usecasesOf, type ForceUsecaseMode } from './scopes.js';

export type Action =
  /** GetExtendedAgentCard */
  | 'read-extended-card'
  /** GetTask, ListTasks, SubscribeToTask */
  | 'read-tasks'
  /** SendMessage, SendStreamingMessage (plus the skill's own scopes) */
  | 'send-message'
  | 'cancel-task'
  /** create, get, list, delete push notification configs */
  | 'manage-push-configs'
  /** open the MCP endpoint at all */
  | 'use-mcp'
  /** the caller's own usage (GET /api/v1/usage); everyone's needs `administer` */
  | 'read-usage'
  /** the management API */
  | 'administer';

export interface Target {
  agentId?: string;
  /** the skills a message is for (their configured scopes are required too) */
  skillIds?: readonly string[];
  /** MCP tool calls reach the same operations under the `mcp:tools…` scopes */
  surface?: 'a2a' | 'mcp';
}

export interface AgentPolicy {
  visibility: 'public' | 'extended';
  usecase?: string;
  /** skill id → scopes needed besides the operation's own */
  skillScopes: Readonly<Record<string, readonly string[]>>;
}

export interface AuthorizationSettings {
  /** `none`: every caller may do everything (authentication off) */
  mode: 'required' | 'none';
  forceUsecase?: string;
  /** `override`: the forced usecase replaces the credential's (default `narrow`: intersects) */
  forceUsecaseMode?: ForceUsecaseMode;
  /** the extended card without a credential (the TCK profile) */
  anonymousExtendedCard: boolean;
  agents: Readonly<Record<string, AgentPolicy>>;
}

const NO_SKILL_SCOPES: Readonly<Record<string, readonly string[]>> = Object.freeze({});

export class AuthorizationPolicy {
  constructor(
    private readonly s: AuthorizationSettings,
    /** receives `authz.denied` for a credential refused for a missing scope */
    private readonly audit: AuditSink = NO_AUDIT,
  ) {}

  static fromConfig(config: Config, audit: AuditSink = NO_AUDIT): AuthorizationPolicy {
    const agents: Record<string, AgentPolicy> = {};
    for (const a of config.agents) {
      const skillScopes: Record<string, readonly string[]> = {};
      for (const [id, sk] of Object.entries(a.skills)) if (sk.scopes?.length) skillScopes[id] = [...sk.scopes];
      agents[a.id] = { visibility: a.visibility ?? 'public', ...(a.usecase === undefined ? {} : { usecase: a.usecase }), skillScopes };
    }
    return new AuthorizationPolicy(
      {
        mode: config.auth.mode,
        ...(config.auth.forceUsecase === undefined ? {} : { forceUsecase: config.auth.forceUsecase }),
        ...(config.auth.forceUsecaseMode === undefined ? {} : { forceUsecaseMode: config.auth.forceUsecaseMode }),
        anonymousExtendedCard: config.auth.anonymousExtendedCard,
        agents,
      },
      audit,
    );
  }

  /** false in mode none: nothing is enforced */
  get enforcing(): boolean {
    return this.s.mode === 'required';
  }

  /** Throws AccessDenied (401 without a credential, 403 with one lacking a scope) unless allowed. */
  authorize(principal: Principal, action: Action, target: Target = {}): void {
    const denied = this.decide(principal, action, target);
    if (!denied) return;
    // A refused credential is a security event; a request without one is the ordinary start of an
    // OAuth challenge and is not recorded (it would bury the log in 401s).
    if (denied.kind === 'PermissionDenied') {
      this.audit.record({
        action: 'authz.denied',
        outcome: 'denied',
        actor: principal.subject,
        // Same actor shape as src/auth/audit-origin.ts (auth sits above the core).
        ...(principal.keyId !== undefined ? { actorClient: `apikey:${principal.keyId}` } : principal.clientId !== undefined ? { actorClient: principal.clientId } : {}),
        ...(target.agentId !== undefined ? { target: `agent:${target.agentId}` } : {}),
        details: { operation: action, requiredScopes: denied.requiredScopes, ...(target.surface ? { surface: target.surface } : {}) },
      });
    }
    throw denied;
  }

  /** Whether `authorize` would allow it (for filtering lists; a refusal here is not recorded). */
  allows(principal: Principal, action: Action, target: Target = {}): boolean {
    return this.decide(principal, action, target) === undefined;
  }

  private decide(principal: Principal, action: Action, target: Target): AccessDenied | undefined {
    if (!this.enforcing) return undefined;
    if (action === 'read-extended-card' && this.s.anonymousExtendedCard) return undefined;
    const needed = this.requiredScopes(action, target);
    // Asked on every call: a caller holding them all costs no array.
    if (needed.every((s) => holds(principal, s))) return undefined;
    const shown = needed.includes(ANY_MCP_SCOPE) ? needed.map((s) => (s === ANY_MCP_SCOPE ? SCOPES.mcpTools : s)) : needed;
    return new AccessDenied(principal.authenticated ? 'PermissionDenied' : 'Unauthenticated', shown);
  }

  /**
   * The scopes an action needs; `ANY_MCP_SCOPE` stands for "mcp:tools or any mcp:tools:<u>". The
   * common answers (no skill scopes configured) are shared frozen lists, not built per call.
   */
  requiredScopes(action: Action, target: Target = {}): readonly string[] {
    if (action === 'administer') return ONLY.admin;
    if (action === 'read-usage') return ONLY.usageRead;
    if (action === 'use-mcp') return ONLY.anyMcp;
    const agent = target.agentId === undefined ? undefined : this.s.agents[target.agentId];
    const skillScopes = action === 'send-message' ? this.skillScopes(target) : NONE;
    if (target.surface === 'mcp') {
      // Overridden, every MCP caller runs as the forced usecase: its agents need any MCP scope.
      const forcedHere = this.s.forceUsecaseMode === 'override' && agent?.usecase !== undefined && agent.usecase === this.s.forceUsecase;
      if ((agent?.usecase === undefined || forcedHere) && skillScopes.length === 0) return ONLY.anyMcp;
      const own = agent?.usecase === undefined || forcedHere ? ANY_MCP_SCOPE : `${MCP_USECASE_SCOPE_PREFIX}${agent.usecase}`;
      return unique([own, ...skillScopes]);
    }
    switch (action) {
      case 'read-extended-card':
      case 'read-tasks':
        return ONLY.discover;
      case 'send-message':
        return skillScopes.length === 0 ? ONLY.publish : unique([SCOPES.publish, ...skillScopes]);
      case 'cancel-task':
      case 'manage-push-configs':
        return ONLY.publish;
    }
  }

  /** Every scope configured on a skill of any agent: names an API key may carry besides the built-in ones. */
  configuredSkillScopes(): string[] {
    return [...new Set(Object.values(this.s.agents).flatMap((a) => Object.values(a.skillScopes).flat()))];
  }

  /** The scopes configured for each skill of an agent (for cards). */
  skillScopesOf(agentId: string): Readonly<Record<string, readonly string[]>> {
    return this.s.agents[agentId]?.skillScopes ?? NO_SKILL_SCOPES;
  }

  /**
   * Whether the agent exists for this caller. Hidden (`visibility: extended`) agents are seen with
   * a2a:discover (on MCP: any MCP scope); an agent of another usecase is never seen by a caller
   * bound to a usecase. Callers answer "not found" otherwise, exactly as for an unknown id.
   */
  canSeeAgent(principal: Principal, agentId: string, surface: 'a2a' | 'mcp' = 'a2a'): boolean {
    if (!this.enforcing) return true;
    const a = this.s.agents[agentId];
    if (!a) return true; // not configured here (tests' hand-built registries): the registry decides
    if (a.usecase !== undefined) {
      const bound = this.usecases(principal);
      if (bound !== undefined && !bound.includes(a.usecase)) return false;
    }
    if (a.visibility === 'public') return true;
    return surface === 'mcp' ? holdsAnyMcpScope(principal) : holdsScope(principal, SCOPES.discover);
  }

  /** Whether the agent is seen without any credential; a face must ask `admitToAgent` otherwise. */
  isPublicAgent(agentId: string, surface: 'a2a' | 'mcp' = 'a2a'): boolean {
    return this.canSeeAgent(ANONYMOUS, agentId, surface);
  }

  /**
   * The hidden-agent rule, which every face applies before anything agent-specific (media type,
   * body, credential errors, methods): an agent not seen without a credential is admitted only for
   * a caller who authenticates and may see it; anyone else (no credential, a refused one, one
   * without the scope) is `unknown` and gets the face's answer for an id that does not exist.
   * `principal` is set when authentication happened here, so the face need not repeat it.
   */
  async admitToAgent(agentId: string, surface: 'a2a' | 'mcp', authenticate: () => Promise<Principal>): Promise<AgentAdmission> {
    if (this.seenByEveryone(agentId, surface)) return { unknown: false };
    let principal: Principal;
    try {
      principal = await authenticate();
    } catch {
      // A refused credential sees what no credential sees: a public agent's 401 stays the face's.
      return { unknown: !this.isPublicAgent(agentId, surface) };
    }
    return this.canSeeAgent(principal, agentId, surface) ? { unknown: false, principal } : { unknown: true };
  }

  /** No caller is refused the sight of it: public, and of no usecase (a bound caller of another usecase may not see it). */
  seenByEveryone(agentId: string, surface: 'a2a' | 'mcp'): boolean {
    if (!this.enforcing) return true;
    return this.isPublicAgent(agentId, surface) && this.s.agents[agentId]?.usecase === undefined;
  }

  /** The usecases whose data the caller may see; undefined = all. */
  usecases(principal: Principal): readonly string[] | undefined {
    if (!this.enforcing) return this.s.forceUsecase === undefined ? undefined : [this.s.forceUsecase];
    return usecasesOf(principal, this.s.forceUsecase, this.s.forceUsecaseMode);
  }

  private skillScopes(target: Target): readonly string[] {
    if (target.agentId === undefined || !target.skillIds) return NONE;
    const per = this.skillScopesOf(target.agentId);
    let scopes: string[] | undefined;
    for (const id of target.skillIds) {
      const own = per[id];
      if (own?.length) (scopes ??= []).push(...own);
    }
    return scopes ?? NONE;
  }
}

export type AgentAdmission = { unknown: true } | { unknown: false; principal?: Principal };

/** Placeholder in `requiredScopes` for "any MCP scope"; reported to clients as `mcp:tools`. */
export const ANY_MCP_SCOPE = 'mcp:tools:*';

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

/** Whether the principal holds a required scope (`ANY_MCP_SCOPE`: any MCP scope). */
function holds(principal: Principal, scope: string): boolean {
  return scope === ANY_MCP_SCOPE ? holdsAnyMcpScope(principal) : holdsScope(principal, scope);
}

const NONE: readonly string[] = Object.freeze([]);
/** The one-scope answers of requiredScopes. */
const ONLY = {
  admin: Object.freeze([SCOPES.admin]),
  usageRead: Object.freeze([SCOPES.usageRead]),
  anyMcp: Object.freeze([ANY_MCP_SCOPE]),
  discover: Object.freeze([SCOPES.discover]),
  publish: Object.freeze([SCOPES.publish]),
} as const;

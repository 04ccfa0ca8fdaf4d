/**
 * The MCP surfaces, one per scope: `/mcp` (every agent the caller may see), `/a2a/{id}/mcp` (one
 * agent) and `PUBLIC_SCOPE` (what anonymous discovery calls see, public-discovery.ts). Each is an
 * McpServer factory (mcp-server-factory.ts) behind the SDK's `createMcpHandler` (both eras: the
 * modern one stateless, 2025-era requests through its stateless legacy fallback), built on first
 * use and rebuilt after the agents change. One event bus serves every scope, so open
 * `subscriptions/listen` streams hear list changes.
 */
import { createMcpHandler, InMemoryServerEventBus, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { AgentRegistry } from '../../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../../core/a2a-handler.js';
import type { AuthorizationPolicy } from '../../../core/authz/policy.js';
import type { EdgeLog } from '../../../edge/face.js';
import type { SkillAnnotationsLookup } from '../tools/agent-tools.js';
import type { McpFixtureModule } from './fixture-module.js';
import type { TaskStateCodec } from '../tools/input-required.js';
import { createMcpServerFactory, type InFlightCalls, type McpScope, type ScopeServerFactory } from './mcp-server-factory.js';
import { PUBLIC_SCOPE } from '../admission/public-discovery.js';

export interface McpScopesDeps {
  registry: AgentRegistry;
  /** the core's handler, marked as reached from MCP (core/stages/surface.ts) */
  handler: A2AHandler;
  policy?: AuthorizationPolicy;
  inFlight: InFlightCalls;
  stateCodec: TaskStateCodec;
  log: EdgeLog;
  version: string;
  keepAliveMs: number;
  bodyLimit: number;
  skillAnnotations?: SkillAnnotationsLookup;
  genericTools?: boolean;
  /** `mcp.fixtureModule`, once imported: served on `/mcp` only (fixture-module.ts) */
  fixtureModule?: () => McpFixtureModule | undefined;
  /** told when the agents change (legacy sessions retire their instances) */
  onListChanged?: () => void;
}

export interface ScopeHandler {
  http: McpHttpHandler;
  factory: ScopeServerFactory;
}

export class McpScopes {
  private readonly handlers = new Map<string, ScopeHandler>();
  /** handlers dropped on an agent change may still hold subscriptions/listen streams until close() */
  private readonly replaced = new Set<McpHttpHandler>();
  readonly listBus: InMemoryServerEventBus;

  constructor(private readonly d: McpScopesDeps) {
    this.listBus = new InMemoryServerEventBus((err) => d.log.debug({ err }, 'mcp: list-change listener failed'));
    // Agents added or removed after start: the per-scope surfaces are rebuilt on next use, open
    // subscriptions/listen streams hear list_changed, legacy sessions are told and retired.
    d.registry.onChange((change) => {
      for (const h of this.handlers.values()) this.replaced.add(h.http);
      this.handlers.clear();
      this.listBus.publish({ kind: 'tools_list_changed' });
      this.listBus.publish({ kind: 'resources_list_changed' });
      d.onListChanged?.();
      d.log.debug(change, 'mcp: agents changed; tools and resources list_changed announced');
    });
  }

  /** The surface of `agentId` (undefined: `/mcp`; `PUBLIC_SCOPE`: every caller's agents, no policy). */
  for(agentId: string | undefined): ScopeHandler {
    const d = this.d;
    const key = agentId ?? '';
    let h = this.handlers.get(key);
    if (!h) {
      const publicScope = agentId === PUBLIC_SCOPE;
      const agents = publicScope ? d.registry.list().filter((a) => !d.policy || d.policy.seenByEveryone(a.id, 'mcp')) : agentId ? [d.registry.get(agentId)!] : d.registry.list();
      const scope: McpScope = { name: agentId ? `/a2a/${agentId}/mcp` : '/mcp', agents };
      const factory = createMcpServerFactory(
        {
          handler: d.handler,
          ...(d.policy && !publicScope ? { policy: d.policy } : {}),
          inFlight: d.inFlight,
          version: d.version,
          log: d.log,
          stateCodec: d.stateCodec,
          ...(d.skillAnnotations ? { skillAnnotations: d.skillAnnotations } : {}),
          genericTools: !!d.genericTools && (!agentId || publicScope),
          ...(d.fixtureModule && !agentId ? { fixtureModule: d.fixtureModule() } : {}),
          listBus: this.listBus,
        },
        scope,
      );
      const http = createMcpHandler(factory, {
        legacy: 'stateless',
        bus: this.listBus,
        keepAliveMs: d.keepAliveMs,
        maxRequestBodySize: d.bodyLimit,
        onerror: (err) => d.log.debug({ err, scope: scope.name }, 'mcp: request rejected or failed'),
      });
      h = { http, factory };
      this.handlers.set(key, h);
    }
    return h;
  }

  /** Ends every handler's open streams (subscriptions/listen never end by themselves). */
  async close(): Promise<void> {
    const all = [...this.replaced, ...[...this.handlers.values()].map((h) => h.http)];
    this.replaced.clear();
    await Promise.all(all.map((h) => h.close().catch((err: unknown) => this.d.log.debug({ err }, 'mcp: handler close failed'))));
  }
}

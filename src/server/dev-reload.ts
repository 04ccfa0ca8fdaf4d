/**
 * Dev mode's reloads (`agentport dev`): an agent's module, or the configuration, is loaded again
 * and swapped into the running server. A task already running keeps the definition it started
 * with (the executor holds it); the next message reaches the new one. A reload that fails (a
 * syntax error, a module that exports no agent, an invalid file) changes nothing: the previous
 * version keeps serving, and the result says why.
 */
import path from 'node:path';
import { loadAgentDefinition, type AgentLoadContext } from '../agents/load-agent.js';
import type { AgentDefinition } from '../core/agents/agent-definition.js';
import type { AgentConfig, Config } from '../config/index.js';
import type { AgentSlots } from './start.js';
import { NO_AUDIT, type AuditSink } from '../core/audit/audit-event.js';

export interface ReloadResult {
  ok: boolean;
  /** one line for the terminal: what was reloaded, or why nothing was */
  line: string;
}

export class DevReloader {
  /** the configuration as last applied, in its loaded form (before listening ports were filled in) */
  private applied: Config;
  /** definitions this reloader loaded, closed when replaced or at stop (the server closes its own) */
  private readonly owned = new Map<string, AgentDefinition>();
  /** reloads run one at a time, in the order asked */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly slots: AgentSlots,
    initial: Config,
    private readonly context: AgentLoadContext,
    /** each configuration reload, applied or refused, is a `config.reloaded` record */
    private readonly audit: AuditSink = NO_AUDIT,
  ) {
    this.applied = initial;
  }

  /** Module files → the agents they define, for the watcher. */
  modules(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const a of this.applied.agents) if (a.module) out.set(a.module, [...(out.get(a.module) ?? []), a.id]);
    return out;
  }

  get config(): Config {
    return this.applied;
  }

  /** Loads the module agents `ids` again (all module agents when omitted). */
  reloadAgents(ids?: readonly string[]): Promise<ReloadResult> {
    return this.serially(async () => {
      const targets = this.applied.agents.filter((a) => a.module && (!ids || ids.includes(a.id)));
      if (targets.length === 0) return { ok: true, line: 'nothing to reload' };
      const loaded = await this.loadAll(targets);
      if ('error' in loaded) return { ok: false, line: `${loaded.error}; the previous version keeps running` };
      await this.swapIn(targets, loaded.defs);
      return { ok: true, line: `reloaded ${describe(targets)}` };
    });
  }

  /** Applies a configuration read again from the file (or the error reading it raised). */
  reloadConfig(next: Config | Error): Promise<ReloadResult> {
    return this.serially(async () => {
      const result = await this.applyConfig(next);
      this.audit.record({ action: 'config.reloaded', outcome: result.ok ? 'success' : 'failure', actor: 'system', target: `config:${this.applied.file ?? '-'}`, details: { result: result.line } });
      return result;
    });
  }

  private async applyConfig(next: Config | Error): Promise<ReloadResult> {
    const file = this.applied.file ?? 'the configuration';
    if (next instanceof Error) return { ok: false, line: `${oneLine(next.message)}; the previous configuration keeps running` };
    const refusal = needsRestart(this.applied, next);
    if (refusal) return { ok: false, line: `${file}: ${refusal}; restart agentport dev to apply it (nothing changed)` };

    const before = new Map(this.applied.agents.map((a) => [a.id, a]));
    const changed = next.agents.filter((a) => {
      const old = before.get(a.id);
      return !old || JSON.stringify(old) !== JSON.stringify(a);
    });
    const removed = this.applied.agents.filter((a) => !next.agents.some((n) => n.id === a.id));
    const loaded = await this.loadAll(changed, next);
    if ('error' in loaded) return { ok: false, line: `${file}: ${loaded.error}; the previous configuration keeps running` };
    await this.swapIn(changed, loaded.defs);
    for (const a of removed) {
      this.slots.remove(a.id);
      await this.release(a.id);
    }
    this.applied = next;
    const parts = [changed.length ? `reloaded ${describe(changed)}` : '', removed.length ? `removed ${removed.map((a) => a.id).join(', ')}` : ''].filter(Boolean);
    return { ok: true, line: `${file}: ${parts.join('; ') || 'no agent changed'}` };
  }

  /** Closes the definitions this reloader loaded. */
  async close(): Promise<void> {
    await this.queue.catch(() => {});
    for (const id of [...this.owned.keys()]) await this.release(id);
  }

  private serially(work: () => Promise<ReloadResult>): Promise<ReloadResult> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Every definition or none: one agent that fails to load leaves all of them as they were. */
  private async loadAll(agents: readonly AgentConfig[], config: Config = this.applied): Promise<{ defs: AgentDefinition[] } | { error: string }> {
    const defs: AgentDefinition[] = [];
    for (const agent of agents) {
      try {
        defs.push(await loadAgentDefinition(agent, config, this.context, { fresh: true }));
      } catch (error) {
        for (const d of defs) await d.close?.().catch(() => {});
        const where = agent.module ? ` (${path.relative(config.baseDir, agent.module) || agent.module})` : '';
        return { error: `${agent.id}${where}: ${messageOf(error)}` };
      }
    }
    return { defs };
  }

  private async swapIn(agents: readonly AgentConfig[], defs: readonly AgentDefinition[]): Promise<void> {
    for (const [i, agent] of agents.entries()) {
      await this.slots.put(agent, defs[i]!);
      await this.release(agent.id);
      this.owned.set(agent.id, defs[i]!);
    }
  }

  private async release(agentId: string): Promise<void> {
    const old = this.owned.get(agentId);
    this.owned.delete(agentId);
    await old?.close?.().catch((err: unknown) => this.context.log.warn({ err, agent: agentId }, 'closing the replaced agent failed'));
  }
}

/**
 * What a live reload cannot apply, or undefined. Listeners, storage and authentication are built
 * once at start; so is the authorization policy, so an agent's visibility, usecase, skill scopes
 * and tool hints only change with a restart (a reload must never loosen what is enforced).
 */
export function needsRestart(running: Config, next: Config): string | undefined {
  // Without cluster.replicaId in the file, each read makes up a new one: not a change.
  if (next.cluster.replicaId !== running.cluster.replicaId) next = { ...next, cluster: { ...next.cluster, replicaId: running.cluster.replicaId } };
  const outside = Object.keys({ ...running, ...next }).filter((key) => key !== 'agents' && JSON.stringify(running[key as keyof Config]) !== JSON.stringify(next[key as keyof Config]));
  if (outside.length) return `${outside.join(', ')} changed`;
  const policyOf = (a: AgentConfig | undefined) =>
    JSON.stringify({
      visibility: a?.visibility ?? 'public',
      usecase: a?.usecase ?? null,
      skills: Object.fromEntries(
        Object.entries(a?.skills ?? {})
          .filter(([, s]) => s.scopes?.length || s.annotations)
          .map(([id, s]) => [id, { scopes: s.scopes ?? [], annotations: s.annotations ?? null }]),
      ),
    });
  for (const a of next.agents) {
    const old = running.agents.find((r) => r.id === a.id);
    if (policyOf(old) !== policyOf(a)) return `the access settings of agent '${a.id}' (visibility, usecase, skill scopes or tool hints) changed`;
  }
  if (!next.agents.some((a) => a.id === running.primaryAgent)) return `the primary agent '${running.primaryAgent}' was removed`;
  return undefined;
}

function describe(agents: readonly AgentConfig[]): string {
  return agents.map((a) => a.id).join(', ');
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A syntax error's first stack line names the file and line; the message alone does not.
  const where = error instanceof SyntaxError ? error.stack?.split('\n')[0] : undefined;
  return where && where !== `${error.name}: ${error.message}` ? `${where} ${error.message}` : error.message;
}

/** A multi-line message (a ConfigError lists each problem on a line) as one line. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

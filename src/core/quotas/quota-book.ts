/**
 * The quotas in force: those of agentport.yaml (read-only) and those set through the management
 * API (the database). Every replica re-reads the database's after `ttlMs`, so a change made on one
 * replica is enforced by all within that time; the replica that made it sees it at once. The read
 * is done in the background: a call never waits for the database once the first read is in.
 */
import type { QuotaConfig } from '../../config/usage-schema.js';
import type { QuotaStore } from '../../store/quota-store.js';
import type { Quota } from './quota.js';

export class QuotaConfigConflict extends Error {
  constructor(readonly id: string) {
    super(`quota '${id}' is set in the configuration file and cannot be changed through the API`);
    this.name = 'QuotaConfigConflict';
  }
}

export interface QuotaBookOptions {
  config: readonly QuotaConfig[];
  /** absent: configuration quotas only */
  store?: QuotaStore;
  ttlMs?: number;
  now?: () => number;
  log?: { warn(obj: object, msg?: string): void };
}

export class QuotaBook {
  private readonly fromConfig: readonly Quota[];
  private stored: readonly Quota[] = [];
  private all: readonly Quota[];
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly o: QuotaBookOptions) {
    this.fromConfig = o.config.map((q) => Object.freeze({ ...q, source: 'config' as const }));
    this.all = this.fromConfig;
    this.ttlMs = o.ttlMs ?? 2_000;
    this.now = o.now ?? Date.now;
  }

  /** The quotas in force; waits only for the first read of the database. */
  async list(): Promise<readonly Quota[]> {
    if (!this.o.store) return this.all;
    if (this.readAt === Number.NEGATIVE_INFINITY) await this.refresh();
    else if (this.now() - this.readAt >= this.ttlMs) void this.refresh().catch((err: unknown) => this.o.log?.warn({ err }, 'quotas: could not re-read the quotas of the database; the last ones read stay in force'));
    return this.all;
  }

  /** Whether any quota may apply: false lets calls skip the quota layer (no API quotas seen, none configured). */
  get empty(): boolean {
    return this.all.length === 0 && (!this.o.store || this.readAt !== Number.NEGATIVE_INFINITY) && !this.stale();
  }

  async put(quota: QuotaConfig): Promise<Quota> {
    const store = this.requireStore();
    if (this.fromConfig.some((q) => q.id === quota.id)) throw new QuotaConfigConflict(quota.id);
    await store.putQuota(quota, this.now());
    await this.refresh();
    return this.all.find((q) => q.id === quota.id)!;
  }

  /** false when there was no such API quota; a configuration quota cannot be deleted. */
  async delete(id: string): Promise<boolean> {
    const store = this.requireStore();
    if (this.fromConfig.some((q) => q.id === id)) throw new QuotaConfigConflict(id);
    const deleted = await store.deleteQuota(id);
    await this.refresh();
    return deleted;
  }

  /** Re-reads the database's quotas now (one read at a time). */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private stale(): boolean {
    return this.o.store !== undefined && this.now() - this.readAt >= this.ttlMs;
  }

  private async read(): Promise<void> {
    const rows = await this.o.store!.listQuotas();
    const configIds = new Set(this.fromConfig.map((q) => q.id));
    // A stored quota whose id the file now uses is shadowed: the file is the operator's last word.
    this.stored = rows.filter((r) => !configIds.has(r.quota.id)).map((r) => Object.freeze({ ...r.quota, source: 'api' as const }));
    this.all = [...this.fromConfig, ...this.stored];
    this.readAt = this.now();
  }

  private requireStore(): QuotaStore {
    if (!this.o.store) throw new Error('quotas: no database to keep API quotas in');
    return this.o.store;
  }
}

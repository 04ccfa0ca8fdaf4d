/**
 * What the datasets hold: table profiles, cached by the fingerprint of the data behind them and
 * recomputed when it changes, and the relations between tables (`orders.customer_id` →
 * `customers.customer_id`) inferred from key columns, which the planner joins along.
 */
import type { Scope, TableEngine } from '../engine/duckdb-engine.js';
import { profileTable, singular, type TableProfile } from './profile.js';

export interface Relation {
  /** the many side: `orders.customer_id` */
  from: { table: string; column: string };
  /** the one side: `customers.customer_id` (a key) */
  to: { table: string; column: string };
  /** both sides are keys: joining either way keeps one row per row */
  oneToOne?: boolean;
}

const FINGERPRINT_TTL_MS = 2_000;

export class Catalog {
  private readonly cache = new Map<string, { fingerprint: string; profile: TableProfile }>();
  private readonly inflight = new Map<string, Promise<TableProfile>>();
  /** fingerprints looked at within the last FINGERPRINT_TTL_MS (a stat per file per call adds up) */
  private readonly seen = new Map<string, { fingerprint: string; at: number }>();

  constructor(readonly engine: TableEngine) {}

  /** Profiles of the tables in scope (all, or the one named), refreshed where the data changed. */
  async profiles(scope?: Scope, only?: string, signal?: AbortSignal, fresh = false): Promise<TableProfile[]> {
    await this.engine.refresh(fresh);
    const tables = this.engine.listTables(scope).filter((t) => !only || t.name === only.toLowerCase());
    const out: TableProfile[] = [];
    for (const t of tables) out.push(await this.profile(t.name, signal, fresh));
    return out;
  }

  private async profile(name: string, signal?: AbortSignal, fresh = false): Promise<TableProfile> {
    const recent = this.seen.get(name);
    let fingerprint: string;
    if (!fresh && recent && Date.now() - recent.at < FINGERPRINT_TTL_MS) fingerprint = recent.fingerprint;
    else {
      fingerprint = await this.engine.fingerprint(name);
      this.seen.set(name, { fingerprint, at: Date.now() });
    }
    const cached = this.cache.get(name);
    const info = this.engine.table(name)!;
    if (cached && cached.fingerprint === fingerprint && sameColumns(cached.profile, info)) return cached.profile;
    const key = `${name}\u0000${fingerprint}`;
    let p = this.inflight.get(key);
    if (!p) {
      p = profileTable(this.engine, info, signal).then((profile) => {
        this.cache.set(name, { fingerprint, profile });
        return profile;
      });
      this.inflight.set(key, p);
      p.then(
        () => this.inflight.delete(key),
        () => this.inflight.delete(key),
      );
    }
    return p;
  }

  /** Many-to-one relations between the given tables, from `<x>_id` columns to the table keyed by it. */
  static relations(profiles: readonly TableProfile[]): Relation[] {
    const out: Relation[] = [];
    for (const a of profiles) {
      for (const c of a.columns) {
        const col = c.name.toLowerCase();
        if (!col.endsWith('_id') && col !== 'id') continue;
        for (const b of profiles) {
          if (b === a || !b.key || b.key.length !== 1) continue;
          const bKey = b.key[0]!.toLowerCase();
          const matches = bKey === col ? a.key?.[0]?.toLowerCase() !== col : bKey === 'id' && (col === `${singular(b.name)}_id` || col === `${b.name}_id`);
          if (matches) out.push({ from: { table: a.name, column: c.name }, to: { table: b.name, column: b.key[0]! } });
        }
      }
    }
    // tables of facts sharing a natural key (`country` in population and continent tables): one to
    // one, so one direction is enough to join them
    for (const a of profiles) {
      for (const b of profiles) {
        if (a === b || b.key?.length !== 1) continue;
        const key = b.key[0]!;
        if (/(^|_)id$/i.test(key) || key.toLowerCase() === 'id') continue;
        const c = a.columns.find((x) => x.name === key);
        const bType = b.columns.find((x) => x.name === key)?.type;
        if (!c || c.type !== bType) continue;
        const oneToOne = a.key?.length === 1 && a.key[0] === key;
        if (oneToOne && a.name > b.name) continue;
        out.push({ from: { table: a.name, column: key }, to: { table: b.name, column: key }, ...(oneToOne ? { oneToOne } : {}) });
      }
    }
    return out;
  }
}

function sameColumns(p: TableProfile, info: { columns: Array<{ name: string; type: string }> }): boolean {
  return p.columns.length === info.columns.length && p.columns.every((c, i) => c.name === info.columns[i]!.name && c.type === info.columns[i]!.type);
}

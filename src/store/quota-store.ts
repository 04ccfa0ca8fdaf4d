/**
 * Quotas set through the management API (migration 0010_quotas). A quota is stored as its JSON
 * definition (the `quotas:` config shape, validated by the caller), so a new quota setting needs no
 * migration. Both dialects share these statements.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import type { QuotaConfig } from '../config/usage-schema.js';

export interface StoredQuota {
  quota: QuotaConfig;
  /** epoch ms */
  updatedAt: number;
}

export interface QuotaStore {
  listQuotas(): Promise<StoredQuota[]>;
  /** Creates or replaces the quota with this id. */
  putQuota(quota: QuotaConfig, at: number): Promise<void>;
  /** false when there was no such quota */
  deleteQuota(id: string): Promise<boolean>;
}

export interface QuotasTable {
  id: string;
  definition: string;
  updated_at: number;
}

export class SqlQuotaStore implements QuotaStore {
  private readonly db: Kysely<{ quotas: QuotasTable }>;
  /**
   * Every replica re-reads the quotas every 2 s (core/quotas/quota-book.ts), at rest too: the query
   * is built and compiled once, not per read (on SQLite its statement is then prepared once too,
   * sqlite/statement-cache.ts).
   */
  private readonly list: CompiledQuery<QuotasTable>;

  constructor(db: Kysely<unknown>) {
    this.db = db as Kysely<{ quotas: QuotasTable }>;
    this.list = this.db.selectFrom('quotas').selectAll().orderBy('id').compile();
  }

  async listQuotas(): Promise<StoredQuota[]> {
    const { rows } = await this.db.executeQuery(this.list);
    return rows.map((r) => ({ quota: JSON.parse(r.definition) as QuotaConfig, updatedAt: Number(r.updated_at) }));
  }

  async putQuota(quota: QuotaConfig, at: number): Promise<void> {
    const definition = JSON.stringify(quota);
    await this.db
      .insertInto('quotas')
      .values({ id: quota.id, definition, updated_at: at })
      .onConflict((c) => c.column('id').doUpdateSet({ definition, updated_at: at }))
      .execute();
  }

  async deleteQuota(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('quotas').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}

/**
 * Query results that can be fetched again by id. The statement is kept, not the rows: fetch
 * re-runs it through the guard, so a saved result is never staler or wider than the data the
 * caller may see now. Bounded: the oldest entries go first.
 */
import { createHash } from 'node:crypto';

export interface SavedResult {
  hash: string;
  sql: string;
  /** the question that produced it, when it came from `ask` */
  question?: string;
  /** the usecases of the tables it reads */
  usecases: string[];
  savedAt: string;
}

export class SavedResults {
  private readonly items = new Map<string, SavedResult>();

  constructor(private readonly capacity = 500) {}

  save(sql: string, usecases: string[], question?: string): SavedResult {
    const hash = createHash('sha256').update(sql).digest('hex').slice(0, 16);
    const existing = this.items.get(hash);
    this.items.delete(hash);
    const item: SavedResult = {
      hash,
      sql,
      ...((question ?? existing?.question) ? { question: question ?? existing!.question! } : {}),
      usecases,
      savedAt: new Date().toISOString(),
    };
    this.items.set(hash, item);
    while (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value!);
    return item;
  }

  get(hash: string): SavedResult | undefined {
    return this.items.get(hash);
  }

  list(): SavedResult[] {
    return [...this.items.values()].reverse();
  }
}

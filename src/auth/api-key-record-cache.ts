/**
 * Stored API key records kept between requests, for as long as the store's credentials generation
 * stays the same (ADR 0052, issue 26). The generation changes with every committed write to a row
 * a record is read from (the key, its owner, its grant: migration 0026), by this process or any
 * other, so a record kept under the current generation is what getApiKey would read now. Only the
 * read is saved: StoredApiKeys still compares the secret and checks revocation, expiry and
 * standing against the clock on every call. Stores that cannot tell their generation cheaply
 * (PostgreSQL) are read on every call, as before.
 *
 * The generation itself is read once per event-loop turn (ADR 0058, poll-turns.ts): the requests
 * read in a turn's poll phase share one read made after that poll began; outside such a window
 * each call reads it.
 */
import type { StoredApiKey } from '../store/store.js';
import { pollTurns } from './poll-turns.js';

/** What the authenticator needs of the store. */
export interface ApiKeyLookup {
  getApiKey(keyId: string): Promise<StoredApiKey | undefined>;
  /** see Store.credentialsGeneration: present only where it is much cheaper than getApiKey */
  credentialsGeneration?(): number;
  /**
   * getApiKey, answered at once (no promise) when the record is kept under the current
   * generation: a kept key is then judged with no promise (issue 26, CPU a request with a key).
   */
  apiKeyNow?(keyId: string): StoredApiKey | Promise<StoredApiKey | undefined>;
}

/** Enough for every key in steady use on one server; a flood of unknown ids is never kept (misses are not cached). */
export const API_KEY_RECORD_CACHE_SIZE = 1024;

export class ApiKeyRecordCache implements ApiKeyLookup {
  readonly #records = new Map<string, StoredApiKey>();
  /** the generation every kept record was read under */
  #generation: number | undefined;
  /** the turn whose generation was read last, and that generation */
  #turn: number | undefined;
  #turnGeneration = 0;

  constructor(
    private readonly store: ApiKeyLookup,
    private readonly generationNow: () => number,
    private readonly maxRecords = API_KEY_RECORD_CACHE_SIZE,
    /** the turn whose poll phase is under way (poll-turns.ts); undefined: read the generation now */
    private readonly turnNow: () => number | undefined = () => pollTurns.current(),
  ) {}

  async getApiKey(keyId: string): Promise<StoredApiKey | undefined> {
    return this.apiKeyNow(keyId);
  }

  apiKeyNow(keyId: string): StoredApiKey | Promise<StoredApiKey | undefined> {
    // Read before the record, never after: a write landing between the two then shows as a newer
    // generation on the next call, which drops what this call keeps.
    const generation = this.#generationOfThisTurn();
    if (generation !== this.#generation) {
      this.#records.clear();
      this.#generation = generation;
    }
    return this.#records.get(keyId) ?? this.#read(keyId, generation);
  }

  async #read(keyId: string, generation: number): Promise<StoredApiKey | undefined> {
    const stored = await this.store.getApiKey(keyId);
    // Another call may have seen a newer generation meanwhile: then this record may be older than it.
    if (stored && this.#generation === generation) this.#keep(keyId, frozen(stored));
    return stored;
  }

  /** The generation read in this turn's poll phase, read now when this is the turn's first call (or no turn is open). */
  #generationOfThisTurn(): number {
    const turn = this.turnNow();
    if (turn !== undefined && turn === this.#turn) return this.#turnGeneration;
    const generation = this.generationNow();
    if (turn !== undefined) {
      this.#turn = turn;
      this.#turnGeneration = generation;
    }
    return generation;
  }

  #keep(keyId: string, stored: StoredApiKey): void {
    if (this.#records.size >= this.maxRecords) this.#records.delete(this.#records.keys().next().value!);
    this.#records.set(keyId, stored);
  }
}

/** A kept record is handed to every later call: none of them may change it for the others. */
function frozen(stored: StoredApiKey): StoredApiKey {
  Object.freeze(stored.scopes);
  const standing = stored.standing;
  if (standing) {
    if (standing.ownerNow) Object.freeze(Object.freeze(standing.ownerNow).scopes);
    if (standing.grant) Object.freeze(standing.grant);
    Object.freeze(standing);
  }
  return Object.freeze(stored);
}

/** The lookup StoredApiKeys reads through: the store itself, or a cache over it where the store can tell its generation. */
export function apiKeyRecords(store: ApiKeyLookup): ApiKeyLookup {
  const generation = store.credentialsGeneration;
  return generation ? new ApiKeyRecordCache(store, generation.bind(store)) : store;
}

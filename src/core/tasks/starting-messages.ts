/**
 * Task-creating messages whose run has not committed its first event yet (so the store cannot find
 * them by messageId), by agent, owner and messageId: a retry in that window waits on the first
 * run's task instead of starting its own (issue 25 C1a). Asked once per SendMessage.
 *
 * Keyed by the messageId alone, the agent and the owner held in the entry (issue 26): a key made of
 * the three was a new concatenated string per lookup, which V8 flattened, hashed and looked up in
 * its string table before every get (a miss, nearly always) and again for the set, ~2 k
 * instructions each; the messageId is the parsed request's own flat string, hashed once, and the
 * same string object is the key of the set and the deletes that follow. Two callers (or agents)
 * rarely send one messageId at once: a key then holds an array of their entries.
 */
import { TransientMap } from '../../memory/transient-map.js';

export interface StartingMessage {
  readonly agentId: string;
  readonly owner: string;
  readonly taskId: string;
  readonly contextId: string;
}

export class StartingMessages {
  readonly #byMessageId = new TransientMap<StartingMessage | StartingMessage[]>();

  /** The entry of (agentId, owner, messageId) set last and not left yet. */
  get(agentId: string, owner: string, messageId: string): StartingMessage | undefined {
    const held = this.#byMessageId.get(messageId);
    if (held === undefined) return undefined;
    if (!Array.isArray(held)) return held.agentId === agentId && held.owner === owner ? held : undefined;
    return held.find((e) => e.agentId === agentId && e.owner === owner);
  }

  /** Makes `entry` the one of its (agentId, owner, messageId): an earlier one of the same three is replaced. */
  set(messageId: string, entry: StartingMessage): void {
    const held = this.#byMessageId.get(messageId);
    if (held === undefined || (!Array.isArray(held) && held.agentId === entry.agentId && held.owner === entry.owner)) {
      this.#byMessageId.set(messageId, entry);
      return;
    }
    const others = (Array.isArray(held) ? held : [held]).filter((e) => e.agentId !== entry.agentId || e.owner !== entry.owner);
    others.push(entry);
    this.#byMessageId.set(messageId, others.length === 1 ? others[0]! : others);
  }

  /** Removes `entry` if it is still the one of its three (a later message of the same three may have replaced it). */
  leave(messageId: string, entry: StartingMessage): void {
    const held = this.#byMessageId.get(messageId);
    if (held === entry) {
      this.#byMessageId.delete(messageId);
      return;
    }
    if (!Array.isArray(held)) return;
    const i = held.indexOf(entry);
    if (i < 0) return;
    if (held.length === 2) this.#byMessageId.set(messageId, held[1 - i]!);
    else held.splice(i, 1);
  }
}

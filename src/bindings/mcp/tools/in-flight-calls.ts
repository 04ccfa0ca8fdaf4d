/**
 * Tool calls in progress, so a legacy `notifications/cancelled` can reach them. The endpoint is
 * stateless: the notification arrives in its own POST, served by a fresh server instance that
 * never saw the call, so the protocol layer's own bookkeeping cannot find it. Calls are keyed by
 * the caller's subject and the JSON-RPC request id; request ids are only unique per client, so a
 * notification that matches more than one call of the same subject cancels none (a wrong cancel
 * is worse than a missed one). Modern clients cancel by closing the stream, which needs none of this.
 *
 * Entries come and go at the request rate: a TransientMap, and an array for a key several calls
 * share, not a Map of Sets (a Set churned at the request rate keeps its replaced tables, and every
 * call they held, alive through young collections: ADR 0047). Many clients number their requests
 * from 1, so one key can hold a call from each of them for as long as the server runs.
 */
import type { RequestId } from '@modelcontextprotocol/server';
import { TransientMap } from '../../../memory/transient-map.js';

/** What a tracked call offers its canceler (an AbortController fits; a plain call passes a smaller object). */
export interface AbortableCall {
  abort(reason?: unknown): void;
}

export class InFlightCalls {
  private readonly calls = new TransientMap<AbortableCall | AbortableCall[]>();

  /** Registers a call; the returned function removes it (call it when the call ends). */
  track(subject: string, requestId: RequestId, controller: AbortableCall): () => void {
    const key = keyOf(subject, requestId);
    const held = this.calls.get(key);
    if (held === undefined) this.calls.set(key, controller);
    else if (Array.isArray(held)) held.push(controller);
    else this.calls.set(key, [held, controller]);
    return () => this.untrack(key, controller);
  }

  /** Aborts the one call that matches; false when none or several do. */
  cancel(subject: string, requestId: RequestId, reason?: string): boolean {
    const held = this.calls.get(keyOf(subject, requestId));
    if (held === undefined || (Array.isArray(held) && held.length !== 1)) return false;
    const controller = Array.isArray(held) ? held[0]! : held;
    controller.abort(new Error(reason ?? 'canceled by the client'));
    return true;
  }

  get size(): number {
    return this.calls.size;
  }

  private untrack(key: string, controller: AbortableCall): void {
    const held = this.calls.get(key);
    if (held === controller) {
      this.calls.delete(key);
      return;
    }
    if (!Array.isArray(held)) return;
    const i = held.indexOf(controller);
    if (i >= 0) held.splice(i, 1);
    if (held.length === 0) this.calls.delete(key);
  }
}

function keyOf(subject: string, requestId: RequestId): string {
  return `${subject}\u0000${typeof requestId}:${String(requestId)}`;
}

/**
 * Tool calls in progress, so a legacy `notifications/cancelled` can reach them. The endpoint is
 * stateless: the notification arrives in its own POST, served by a fresh server instance that
 * never saw the call, so the protocol layer's own bookkeeping cannot find it. Calls are keyed by
 * the caller's subject and the JSON-RPC request id; request ids are only unique per client, so a
 * notification that matches more than one call of the same subject cancels none (a wrong cancel
 * is worse than a missed one). Modern clients cancel by closing the stream, which needs none of this.
 *
 * Entries come and go at the request rate: a TransientMultiMap, not a Map of Sets (a Set churned at the request rate keeps its replaced tables, and every
 * call they held, alive through young collections: ADR 0047). Many clients number their requests
 * from 1, so one key can hold a call from each of them for as long as the server runs.
 */
import type { RequestId } from '@modelcontextprotocol/server';
import { TransientMultiMap } from '../../../memory/transient-multi-map.js';

/** What a tracked call offers its canceler (an AbortController fits; a plain call passes a smaller object). */
export interface AbortableCall {
  abort(reason?: unknown): void;
}

export class InFlightCalls {
  private readonly calls = new TransientMultiMap<AbortableCall>();

  /** Registers a call; the returned function removes it (call it when the call ends). */
  track(subject: string, requestId: RequestId, controller: AbortableCall): () => void {
    const key = keyOf(subject, requestId);
    this.calls.add(key, controller);
    return () => void this.calls.remove(key, controller);
  }

  /** Aborts the one call that matches; false when none or several do. */
  cancel(subject: string, requestId: RequestId, reason?: string): boolean {
    const controller = this.calls.only(keyOf(subject, requestId));
    if (!controller) return false;
    controller.abort(new Error(reason ?? 'canceled by the client'));
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}

function keyOf(subject: string, requestId: RequestId): string {
  return `${subject}\u0000${typeof requestId}:${String(requestId)}`;
}

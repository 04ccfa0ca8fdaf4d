/**
 * Tool calls in progress, so a legacy `notifications/cancelled` can reach them. The endpoint is
 * stateless: the notification arrives in its own POST, served by a fresh server instance that
 * never saw the call, so the protocol layer's own bookkeeping cannot find it. Calls are keyed by
 * the caller's subject and the JSON-RPC request id; request ids are only unique per client, so a
 * notification that matches more than one call of the same subject cancels none (a wrong cancel
 * is worse than a missed one). Modern clients cancel by closing the stream, which needs none of this.
 */
import type { RequestId } from '@modelcontextprotocol/server';

/** What a tracked call offers its canceler (an AbortController fits; a plain call passes a smaller object). */
export interface AbortableCall {
  abort(reason?: unknown): void;
}

export class InFlightCalls {
  private readonly calls = new Map<string, Set<AbortableCall>>();

  /** Registers a call; the returned function removes it (call it when the call ends). */
  track(subject: string, requestId: RequestId, controller: AbortableCall): () => void {
    const key = keyOf(subject, requestId);
    let set = this.calls.get(key);
    if (!set) this.calls.set(key, (set = new Set()));
    set.add(controller);
    return () => {
      set.delete(controller);
      if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
    };
  }

  /** Aborts the one call that matches; false when none or several do. */
  cancel(subject: string, requestId: RequestId, reason?: string): boolean {
    const set = this.calls.get(keyOf(subject, requestId));
    if (set?.size !== 1) return false;
    const [controller] = set;
    controller!.abort(new Error(reason ?? 'canceled by the client'));
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}

function keyOf(subject: string, requestId: RequestId): string {
  return `${subject}\u0000${typeof requestId}:${String(requestId)}`;
}

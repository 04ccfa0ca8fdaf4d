/**
 * What /readyz reports (docs/observability.md#health): whether this replica can take traffic now.
 *
 * - storage: reachable (a ping), and for SQLite its directory takes a write (a full disk or a
 *   read-only remount leaves reads, and so the ping, working while every write fails), and no
 *   commit has failed on a damaged file (`damaged`, `I/O error`);
 * - bus: reachable, subscribed, and a probe published through it comes back (its round trip in
 *   the answer); the in-process bus is always ok;
 * - push: the outbox backlog, its size and the age of its oldest delivery. Report-only unless
 *   `push.maxOutboxAge` is set: the outbox is shared by every replica, so a slow webhook receiver
 *   would otherwise take every replica out of the load balancer at once, for a problem none of
 *   them can fix by not taking traffic.
 *
 * The answer is public: it says what is wrong in fixed words, never a path, host or URL. The
 * details go to the log, once per change of state.
 */
import type { EventBus } from '../bus/index.js';
import type { Store } from '../store/index.js';
import { notWritableReason, probeWritable } from './storage-writable.js';

export interface Readiness {
  /** 'ok', or why not in a few fixed words */
  checks: Record<string, string>;
  /** figures behind the checks */
  measures: {
    bus?: { roundTripMs: number };
    push?: { pending: number; oldestAgeMs: number };
  };
}

export interface ReadinessOptions {
  store: Pick<Store, 'ping' | 'outboxBacklog' | 'storageFailure'>;
  bus: Pick<EventBus, 'health'>;
  /** SQLite's directory, probed for writes; absent for PostgreSQL and `:memory:` */
  dbDir?: string;
  /** `push.maxOutboxAge`: not ready while the oldest pending delivery is older; absent: report-only */
  maxOutboxAgeMs?: number;
  log: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
  now?: () => number;
}

export function readiness(o: ReadinessOptions): () => Promise<Readiness> {
  const now = o.now ?? Date.now;
  let lastNotReady = '';
  return async () => {
    const [storage, bus, backlog] = await Promise.all([
      o.store.ping().then(
        () => {
          // A commit that failed on the file itself (a damaged page): a ping and a probe of the directory still pass.
          const failure = o.store.storageFailure?.();
          if (failure) return failure;
          return o.dbDir ? probeWritable(o.dbDir).then(() => 'ok', notWritableReason) : 'ok';
        },
        () => 'unreachable',
      ),
      o.bus.health().catch((err: unknown) => ({ ok: false, detail: err instanceof Error ? err.message : String(err), roundTripMs: undefined })),
      o.store.outboxBacklog().catch(() => undefined),
    ]);
    const checks: Record<string, string> = { storage, bus: bus.ok ? 'ok' : 'unavailable' };
    const measures: Readiness['measures'] = {};
    if (bus.roundTripMs !== undefined) measures.bus = { roundTripMs: bus.roundTripMs };
    if (backlog) {
      const oldestAgeMs = backlog.oldestCreatedAt === undefined ? 0 : Math.max(0, now() - backlog.oldestCreatedAt);
      measures.push = { pending: backlog.pending, oldestAgeMs };
      checks.push = o.maxOutboxAgeMs !== undefined && oldestAgeMs > o.maxOutboxAgeMs ? 'outbox backlog too old' : 'ok';
    } else {
      checks.push = 'unreachable';
    }
    // Logged on a change of state only: a probe every few seconds must not flood the log.
    const notReady = Object.entries(checks)
      .filter(([, v]) => v !== 'ok')
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ');
    if (notReady !== lastNotReady) {
      if (notReady) o.log.warn({ checks, measures, busDetail: bus.ok ? undefined : bus.detail }, `not ready (${notReady})`);
      else o.log.info({ measures }, 'ready again');
      lastNotReady = notReady;
    }
    return { checks, measures };
  };
}

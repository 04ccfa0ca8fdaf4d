/**
 * The two Redis connections of a replica's bus and what opening and closing them takes.
 */
import { Redis } from 'ioredis';
import { redactUrl } from '../../config/redact-url.js';

export { RedisUnavailableError } from './unavailable-error.js';

export function assertRedisUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error(`event bus: the Redis URL is not a URL: ${redactUrl(url, '(unparseable Redis URL)')}`);
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new Error(`event bus: the Redis URL must start with redis:// or rediss://, got ${protocol}//`);
  }
}

export interface BusConnectionOptions {
  url: string;
  /** CLIENT SETNAME, so an operator can tell the connections apart in CLIENT LIST */
  name: string;
  connectTimeoutMs: number;
  /**
   * Commands issued in one tick go out in one write (ioredis auto-pipelining). For the publisher:
   * a group commit settles many tasks at once, each publishing its records, and one write instead
   * of one per task spares a syscall per task here and a read per task in Redis (issue 26).
   */
  pipelineTicks?: boolean;
}

/**
 * Neither connection queues anything while Redis is down: a queued PUBLISH would be replayed late
 * and unbounded, and the log already covers what was dropped. A command in flight when the
 * connection drops fails at once instead of being resent after the reconnect.
 *
 * Re-subscription is done by the bus itself on every 'ready' (autoResubscribe off): ioredis sends
 * its own SUBSCRIBE without a way to learn when Redis confirmed it, and the bus must not read the
 * log for the outage before it is subscribed again, or a record published in between is missed.
 */
export function createBusConnection(opts: BusConnectionOptions): Redis {
  return new Redis(opts.url, {
    lazyConnect: true,
    connectionName: opts.name.replace(/[^\w.:-]/g, '_'),
    connectTimeout: opts.connectTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    autoResubscribe: false,
    enableAutoPipelining: opts.pipelineTicks === true,
    // ioredis reconnects forever; the bus keeps streams going from the log meanwhile.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
}

/** Resolves on the connection's next 'ready'; errors on the way are left to retry. */
export function nextReady(conn: Redis): Promise<void> {
  if (conn.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => conn.once('ready', () => resolve()));
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** QUIT when Redis can hear it (lets it free the client at once), else just drop the socket. */
export async function closeConnection(conn: Redis): Promise<void> {
  if (conn.status === 'ready') {
    try {
      await withTimeout(conn.quit(), 1000, 'QUIT');
      return;
    } catch {
      // fall through: the socket is dropped below
    }
  }
  conn.disconnect();
}

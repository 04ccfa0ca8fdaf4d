/**
 * Redis did not answer in time. Apart from the connections, so that naming it loads no Redis
 * client (the bus's index offers it to every start, most of which use no Redis).
 */
export class RedisUnavailableError extends Error {
  readonly code = 'AGENTPORT_REDIS_UNAVAILABLE';
  constructor(
    readonly url: string,
    timeoutMs: number,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : cause === undefined ? 'no answer' : String(cause);
    super(`event bus: cannot reach Redis at ${url} within ${timeoutMs} ms (${why})`, { cause });
    this.name = 'RedisUnavailableError';
  }
}

/** Closing what a start opened, in order, each step bounded. */

/** After a failed start, no closing step may hold the process longer than this. */
export const FAILED_START_CLOSE_MS = 10_000;

/**
 * Runs each closer in order. A ref'd timer is held while each runs: a step whose promise nothing
 * else keeps alive then still settles (or times out) instead of leaving an empty event loop, on
 * which Node ends the process with status 13 and nothing printed.
 */
export async function closeAll(closers: Array<() => Promise<void>>, stepLimitMs?: number): Promise<void> {
  for (const c of closers) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        c(),
        new Promise<void>((resolve) => {
          timer = stepLimitMs === undefined ? setInterval(() => {}, 60_000) : setTimeout(resolve, stepLimitMs);
        }),
      ]);
    } catch {
      // keep closing the rest
    } finally {
      clearTimeout(timer);
    }
  }
}

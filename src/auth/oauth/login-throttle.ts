/**
 * Slows password guessing on the login pages without letting a stranger lock anyone out.
 *
 * - Per username **and** address: 5 failures are free; after the 5th the next attempt waits 2
 *   seconds after the last failure, then 4, 8, … up to 15 minutes. Someone guessing one account from
 *   one address is slowed to a crawl, while the account's owner, signing in from elsewhere, is
 *   not touched (a lock per account would let anyone lock it from anywhere).
 * - Per address, for all usernames together: 100 failures per 15 minutes, a budget against one
 *   address spraying many accounts. It is large because many honest people can share an address
 *   (a NAT, a proxy the server is not told about: see `auth.oauth.trustedProxies`).
 * - A success clears the pair's failures.
 *
 * Per process: with several replicas an attacker gets each budget per replica, still far from a
 * dictionary; the pair's growing delay is the main brake and holds on every replica.
 */
const FREE_FAILURES = 5;
const MAX_DELAY_MS = 15 * 60_000;
const ADDRESS_BUDGET = 100;
const WINDOW_MS = 15 * 60_000;
const MAX_TRACKED = 10_000;

interface Failures {
  count: number;
  /** epoch ms of the first failure (address window) or the last one (pair delay) */
  at: number;
}

export class LoginThrottle {
  private readonly pairs = new Map<string, Failures>();
  private readonly addresses = new Map<string, Failures>();

  constructor(private readonly now: () => number = Date.now) {}

  /** 0 when an attempt for this username from this address may be checked; else seconds to wait. */
  retryAfterSeconds(username: string, address: string | undefined): number {
    const now = this.now();
    const pair = this.pairs.get(pairKey(username, address));
    const pairUntil = pair && pair.count >= FREE_FAILURES ? pair.at + delayAfter(pair.count) : 0;
    const addr = this.addresses.get(address ?? '?');
    const addressUntil = addr && addr.count >= ADDRESS_BUDGET && now - addr.at < WINDOW_MS ? addr.at + WINDOW_MS : 0;
    const until = Math.max(pairUntil, addressUntil);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  failed(username: string, address: string | undefined): void {
    const now = this.now();
    const key = pairKey(username, address);
    const pair = this.pairs.get(key);
    // A pair quiet for the longest delay starts over.
    if (!pair || now - pair.at > MAX_DELAY_MS) track(this.pairs, key, { count: 1, at: now });
    else Object.assign(pair, { count: pair.count + 1, at: now });

    const a = address ?? '?';
    const addr = this.addresses.get(a);
    if (!addr || now - addr.at >= WINDOW_MS) track(this.addresses, a, { count: 1, at: now });
    else addr.count++;
  }

  succeeded(username: string, address: string | undefined): void {
    this.pairs.delete(pairKey(username, address));
  }
}

const pairKey = (username: string, address: string | undefined) => `${username.toLowerCase()}\n${address ?? '?'}`;

/** The wait after the n-th failure of a pair (n ≥ FREE_FAILURES): 2 s, doubling, at most 15 minutes. */
function delayAfter(count: number): number {
  return Math.min(MAX_DELAY_MS, 1000 * 2 ** (count - FREE_FAILURES + 1));
}

function track(map: Map<string, Failures>, key: string, value: Failures): void {
  map.delete(key);
  // Oldest first out, so a flood of fresh keys cannot grow the map without bound.
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

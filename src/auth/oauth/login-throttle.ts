/**
 * Slows password guessing on the login pages: after 5 failed sign-ins for one username (from any
 * address) or from one address (for any username) within 15 minutes, further attempts are refused
 * until the window has passed, before the password is even hashed. Per process: with several
 * replicas an attacker gets 5 tries per replica, still far from a dictionary.
 */
const MAX_FAILURES = 5;
const WINDOW_MS = 15 * 60_000;
const MAX_TRACKED = 10_000;

export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether an attempt for this username from this address may be checked at all. */
  allowed(username: string, address: string | undefined): boolean {
    return [`u:${username.toLowerCase()}`, `a:${address ?? '?'}`].every((k) => {
      const f = this.failures.get(k);
      if (!f || this.now() - f.since > WINDOW_MS) return true;
      return f.count < MAX_FAILURES;
    });
  }

  failed(username: string, address: string | undefined): void {
    for (const k of [`u:${username.toLowerCase()}`, `a:${address ?? '?'}`]) {
      const f = this.failures.get(k);
      if (!f || this.now() - f.since > WINDOW_MS) {
        if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
        this.failures.set(k, { count: 1, since: this.now() });
      } else f.count++;
    }
  }

  succeeded(username: string): void {
    this.failures.delete(`u:${username.toLowerCase()}`);
  }
}

/**
 * The start gate: the listener binds before the agents are registered (cards carry the bound
 * port), so a request that arrives in between waits for the start instead of finding no agents,
 * and one that arrives after a failed start is refused. Asked once per request, by the edge (and
 * by the gRPC listener, which has its own admission).
 */
export class StartGate {
  private state: 'pending' | 'open' | 'failed' = 'pending';
  private readonly settled: Promise<boolean>;

  constructor(private readonly started: Promise<void>) {
    this.settled = started.then(
      () => ((this.state = 'open'), true),
      () => ((this.state = 'failed'), false),
    );
  }

  /** true once started: the request goes on at once (the hot path takes no promise) */
  get open(): boolean {
    return this.state === 'open';
  }

  /** resolves true once started, false if the start failed */
  passed(): Promise<boolean> {
    return this.state === 'pending' ? this.settled : Promise.resolve(this.state === 'open');
  }

  /** resolves once started; rejects with the start's own error if it failed */
  whenStarted(): Promise<void> {
    return this.started;
  }
}

import { GroupCommitter } from '../../../src/store/index.js';
import type { TaskCommit } from '../../../src/store/store.js';

/** A committer whose commits wait while `held` is set, each until `release()`. */
export class HoldingCommitter extends GroupCommitter {
  held = false;
  /** commits waiting now */
  waiting = 0;
  private gate?: { promise: Promise<void>; open: () => void } | undefined;

  override commit(c: TaskCommit): Promise<void> {
    if (!this.held) return super.commit(c);
    if (!this.gate) {
      let open!: () => void;
      const promise = new Promise<void>((r) => (open = r));
      this.gate = { promise, open };
    }
    this.waiting++;
    return this.gate.promise.then(() => {
      this.waiting--;
      return super.commit(c);
    });
  }

  release(): void {
    this.held = false;
    this.gate?.open();
    this.gate = undefined;
  }
}

/**
 * A committer whose commits reach the store at once while `held` is set, and whose callers hear
 * of them only at `release()`: a commit landed, its acknowledgement not yet read.
 */
export class AckHoldingCommitter extends GroupCommitter {
  held = false;
  /** commits landed whose acknowledgement waits now */
  waiting = 0;
  private gate?: { promise: Promise<void>; open: () => void } | undefined;

  override commit(c: TaskCommit): Promise<void> {
    const written = super.commit(c);
    if (!this.held) return written;
    if (!this.gate) {
      let open!: () => void;
      const promise = new Promise<void>((r) => (open = r));
      this.gate = { promise, open };
    }
    const gate = this.gate.promise;
    return written.then(() => {
      this.waiting++;
      return gate.then(() => {
        this.waiting--;
      });
    });
  }

  release(): void {
    this.held = false;
    this.gate?.open();
    this.gate = undefined;
  }
}

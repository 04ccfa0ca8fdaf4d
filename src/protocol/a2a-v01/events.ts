/**
 * Stream results for v0.1 clients, which knew only two events, both keyed by the task `id`:
 * TaskStatusUpdateEvent (with `final`) and TaskArtifactUpdateEvent (artifacts by `index`). The
 * v1.0 stream's Task snapshot becomes a status update; a direct Message reply (no task) becomes a
 * final status update carrying it, as `completed`.
 */
import type { Message, StreamResponse, Task } from '../a2a/types.js';
import { isFinalState } from '../a2a-v03/events.js';
import { messageFromV1 } from './messages.js';
import { artifactFromV1, statusFromV1 } from './tasks.js';
import type { V01StreamResult, V01Task } from './types.js';

/**
 * Translates one stream's events in order. It remembers the position of each artifact id it has
 * seen (from the snapshot, then from updates), since v0.1 addressed artifacts by index.
 */
export class V01StreamTranslator {
  private readonly indexes = new Map<string, number>();

  constructor(private readonly clientId: string) {}

  next(r: StreamResponse): V01StreamResult {
    if ('task' in r) return this.snapshot(r.task);
    if ('message' in r) return directReply(this.clientId, r.message);
    if ('statusUpdate' in r) {
      const e = r.statusUpdate;
      return { id: this.clientId, status: statusFromV1(e.status), final: isFinalState(e.status.state), ...(e.metadata ? { metadata: e.metadata } : {}) };
    }
    const e = r.artifactUpdate;
    let index = this.indexes.get(e.artifact.artifactId);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(e.artifact.artifactId, index);
    }
    const artifact = artifactFromV1(e.artifact, index);
    if (e.append !== undefined) artifact.append = e.append;
    if (e.lastChunk !== undefined) artifact.lastChunk = e.lastChunk;
    return { id: this.clientId, artifact, ...(e.metadata ? { metadata: e.metadata } : {}) };
  }

  /**
   * Numbers the task's artifacts by their place in it. A stream resumed with Last-Event-ID opens
   * without the snapshot that does this, and its first chunk may belong to any artifact.
   */
  knowArtifacts(t: Task): void {
    t.artifacts?.forEach((a, i) => this.indexes.set(a.artifactId, i));
  }

  private snapshot(t: Task): V01StreamResult {
    this.knowArtifacts(t);
    return { id: this.clientId, status: statusFromV1(t.status), final: isFinalState(t.status.state), ...(t.metadata ? { metadata: t.metadata } : {}) };
  }
}

function directReply(clientId: string, m: Message): V01StreamResult {
  return { id: clientId, status: { state: 'completed', message: messageFromV1(m) }, final: true };
}

/**
 * `tasks/send` answers a Task. When the agent answered with a Message and made no task, the
 * client still gets a Task under its id: completed, the reply as its status message. Nothing is
 * stored under that id, so a later `tasks/get` finds no task (the reply was the whole exchange).
 */
export function messageAsTask(clientId: string, sessionId: string | undefined, m: Message): V01Task {
  return { id: clientId, ...(sessionId ? { sessionId } : {}), status: { state: 'completed', message: messageFromV1(m) } };
}

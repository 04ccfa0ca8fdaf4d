/**
 * Push bodies for webhooks registered by older clients (src/core/push/push-body-version.ts): the
 * core knows only v1.0 and asks for these by version; the shapes live with their protocol version.
 */
import type { LegacyPushBodies } from '../core/push/push-body-version.js';
import { taskFromV1 as v01Task } from '../protocol/a2a-v01/tasks.js';
import { taskFromV1 } from '../protocol/a2a-v03/tasks.js';

/** v0.3 (specification.md §9 at v0.3.0): the bare Task, `kind:"task"`, kebab-case states. */
export const LEGACY_PUSH_BODIES: LegacyPushBodies = {
  '0.3': (task) => taskFromV1(task),
  /** v0.1 (specification.md §9 at v0.1.0): the bare Task under the client's own id, `sessionId`, v0.1 parts. */
  '0.1': (task) => v01Task(task),
};

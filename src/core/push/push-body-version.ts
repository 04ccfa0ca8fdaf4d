/**
 * Which A2A wire version a push config was registered through. A v1.0 client's webhook receives
 * v1.0 StreamResponse bodies; a v0.3 or v0.1 client's receiver was written for that version's body
 * (a bare Task in its own shape), so configs remember the version of the call that created them.
 *
 * The version travels beside the config JSON in the store (no column: one reserved key that is
 * stripped before a config is shown to any client), and on the call as an optional CallContext
 * property that only the legacy bindings set.
 */
import type { Task, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import type { CallContext } from '../a2a-handler.js';

export type PushBodyVersion = '1.0' | '0.3' | '0.1';

/** Legacy bindings build their CallContext with this set; absent means v1.0. */
export interface PushBodyVersioned {
  pushBodyVersion?: PushBodyVersion;
}

/** The body a legacy receiver gets for one event: the task as it stood after that event, in its version's shape. */
export type LegacyPushBodies = Partial<Record<Exclude<PushBodyVersion, '1.0'>, (task: Task) => unknown>>;

const STORED_KEY = 'agentportPushBodyVersion';

export const pushBodyVersionOfCall = (ctx: CallContext): PushBodyVersion => (ctx as CallContext & PushBodyVersioned).pushBodyVersion ?? '1.0';

/** The config as stored: tagged when it came from a legacy call. */
export function tagForStorage<C extends TaskPushNotificationConfig>(config: C, version: PushBodyVersion): C {
  return version === '1.0' ? config : { ...config, [STORED_KEY]: version };
}

export function storedBodyVersion(config: TaskPushNotificationConfig): PushBodyVersion {
  const v = (config as unknown as Record<string, unknown>)[STORED_KEY];
  return v === '0.3' || v === '0.1' ? v : '1.0';
}

/** The config as clients see it. */
export function untagged<C extends TaskPushNotificationConfig>(config: C): C {
  if (!(STORED_KEY in config)) return config;
  const { [STORED_KEY]: _v, ...rest } = config as C & Record<string, unknown>;
  return rest as C;
}

/**
 * Which A2A wire version a push config was registered through. A v1.0 client's webhook receives
 * v1.0 StreamResponse bodies; a v0.3 or v0.1 client's receiver was written for that version's body
 * (a bare Task in its own shape), so configs remember the version of the call that created them.
 *
 * The version travels beside the config JSON in the store (no column: one reserved key that is
 * stripped before a config is shown to any client), and on the call as CallContext.wireVersion,
 * which only the legacy bindings set. The core knows versions by name only: the body shapes of the
 * older ones are handed to the delivery worker from outside (src/bindings/a2a-legacy/push-bodies.ts,
 * passed in by src/server/start.ts).
 */
import type { Task, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import type { CallContext, WireVersion } from '../a2a-handler.js';

export type PushBodyVersion = WireVersion;

/** The body a legacy receiver gets for one event: the task as it stood after that event, in its version's shape. */
export type LegacyPushBodies = Partial<Record<Exclude<PushBodyVersion, '1.0'>, (task: Task) => unknown>>;

const STORED_KEY = 'agentportPushBodyVersion';

export const pushBodyVersionOfCall = (ctx: CallContext): PushBodyVersion => ctx.wireVersion ?? '1.0';

/** The config as stored: tagged when it came from a legacy call. */
export function tagForStorage<C extends TaskPushNotificationConfig>(config: C, version: PushBodyVersion): C {
  return version === '1.0' ? config : { ...config, [STORED_KEY]: version };
}

export function storedBodyVersion(config: TaskPushNotificationConfig): PushBodyVersion {
  const v = STORED_KEY in config ? config[STORED_KEY] : undefined;
  return v === '0.3' || v === '0.1' ? v : '1.0';
}

/** The config as clients see it. */
export function untagged<C extends TaskPushNotificationConfig>(config: C): C {
  if (!(STORED_KEY in config)) return config;
  const { [STORED_KEY]: _v, ...rest } = config as C & Record<string, unknown>;
  return rest as C;
}

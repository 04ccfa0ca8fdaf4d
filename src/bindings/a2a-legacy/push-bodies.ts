/**
 * Push bodies for webhooks registered by older clients (src/core/push/push-body-version.ts): the
 * core knows versions only by name and is handed these by src/server/start.ts; the shapes live
 * with their version.
 */
import type { LegacyPushBodies } from '../../core/push/push-body-version.js';
import { v01PushBody } from './v01/push.js';
import { v03PushBody } from './v03/push.js';

export const LEGACY_PUSH_BODIES: LegacyPushBodies = {
  '0.3': v03PushBody,
  '0.1': v01PushBody,
};

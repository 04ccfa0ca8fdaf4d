/**
 * Audit records of the store commands (`keys`, `users`, `clients`): they change the same records
 * as the management API, so they leave the same trace. A CLI run is short, so the record is
 * appended at once (no queue); the actor is the operating-system user who ran it. A failed append
 * is reported and does not undo the change (it is already committed).
 */
import { hostname, userInfo } from 'node:os';
import type { AuditEvent } from '../core/audit/audit-event.js';
import type { CliIO } from './io.js';
import type { OpenedStore } from './store-access.js';

export const CLI_ACTOR_CLIENT = 'agentport-cli';

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry (a container running as an arbitrary uid).
    return `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

export type CliAuditEvent = Omit<AuditEvent, 'actor' | 'actorClient' | 'outcome'> & { outcome?: AuditEvent['outcome'] };
export type CliAudit = (e: CliAuditEvent) => Promise<void>;

export async function recordCliEvent(store: OpenedStore, io: CliIO, e: CliAuditEvent): Promise<void> {
  try {
    await store.audit.append([
      {
        time: Date.now(),
        replica: `cli@${hostname()}`,
        outcome: 'success',
        actor: `os:${osUser()}`,
        actorClient: CLI_ACTOR_CLIENT,
        ...e,
      },
    ]);
  } catch (error) {
    io.stderr(`agentport: warning: the audit record of ${e.action} was not written: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

/**
 * A configuration reload in `agentport dev` leaves a `config.reloaded` record, applied or refused.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/core/audit/audit-event.js';
import { parseConfig } from '../../src/config/index.js';
import { DevReloader } from '../../src/server/dev-reload.js';
import type { AgentSlots } from '../../src/server/start.js';

describe('DevReloader audit records', () => {
  it('records an applied reload as success and a refused one as failure, with the reason', async () => {
    const config = parseConfig({ agents: [{ id: 'echo', builtin: 'echo' }] }, { env: {}, cwd: '/tmp' });
    const slots: AgentSlots = { config, put: async () => {}, remove: () => true };
    const events: AuditEvent[] = [];
    const reloader = new DevReloader(slots, config, { log: { debug() {}, warn() {} }, version: '0.0.0' }, { record: (e) => events.push(e) });
    expect((await reloader.reloadConfig(config)).ok).toBe(true);
    expect((await reloader.reloadConfig(new Error('agentport.yaml: line 3: bad indentation'))).ok).toBe(false);
    expect(events.map((e) => [e.action, e.outcome, e.actor])).toEqual([
      ['config.reloaded', 'success', 'system'],
      ['config.reloaded', 'failure', 'system'],
    ]);
    expect(events[1]!.details).toEqual({ result: expect.stringContaining('bad indentation') });
    await reloader.close();
  });
});

/**
 * Reachability and schema version, part of the Store contract: what `agentport db status` and the
 * readiness probe rely on, and the refusal to run on a database a newer Agentport migrated.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseSchemaNewerError } from '../../src/store/store.js';
import { newTask } from './fixtures.js';
import type { ContractContext } from './store-contract.js';

/** A migration name no build will ship before this one is long gone. */
const FUTURE = '9999_from_a_newer_agentport';

export function describeSchemaContract(ctx: ContractContext): void {
  describe('ping', () => {
    it('resolves on a reachable database', async () => {
      await expect(ctx.store().ping()).resolves.toBeUndefined();
    });
  });

  describe('migrationStatus', () => {
    it('reports every known migration applied after migrate, in order', async () => {
      const status = await ctx.store().migrationStatus();
      expect(status.known.length).toBeGreaterThanOrEqual(2);
      expect(status.known).toEqual([...status.known].sort());
      expect(status.known).toEqual(expect.arrayContaining(['0001_initial', '0002_task_leases', '0003_signing_keys']));
      expect(status.applied).toEqual(status.known);
      expect(status.pending).toEqual([]);
      expect(status.unknown).toEqual([]);
    });

    it('reports every known migration pending on a database never migrated', async () => {
      const fresh = await ctx.open();
      try {
        const status = await fresh.migrationStatus();
        expect(status.applied).toEqual([]);
        expect(status.pending).toEqual(status.known);
        expect(status.unknown).toEqual([]);
        await fresh.migrate();
        expect((await fresh.migrationStatus()).pending).toEqual([]);
      } finally {
        await fresh.close();
      }
    });
  });

  describe('a database migrated by a newer Agentport', () => {
    it.skipIf(!ctx.options.exec)('is reported as unknown migrations and refused by migrate, leaving the data alone', async () => {
      const c = newTask();
      await ctx.store().commit([c]);
      await ctx.options.exec!(`insert into kysely_migration (name, timestamp) values ('${FUTURE}', '2100-01-01T00:00:00.000Z')`);

      const status = await ctx.store().migrationStatus();
      expect(status.unknown).toEqual([FUTURE]);
      expect(status.applied).toEqual([...status.known, FUTURE]);
      expect(status.pending).toEqual([]);

      const err = await ctx
        .store()
        .migrate()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(DatabaseSchemaNewerError);
      expect((err as Error).message).toBe(`database schema is newer than this Agentport: unknown migrations ${FUTURE}; upgrade Agentport`);
      expect((err as DatabaseSchemaNewerError).unknownMigrations).toEqual([FUTURE]);
      expect((await ctx.store().getTask(c.agentId, c.task.id))?.task).toEqual(c.task);
    });
  });
}

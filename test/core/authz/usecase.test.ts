/**
 * A credential bound to usecase A (its `usecase`, or only `mcp:tools:A` scopes) neither sees nor
 * queries usecase B's Table Expert tables — over MCP (search, fetch, query_table_expert, the item
 * page) and over A2A (the Table Expert skills) — and does not see B's agents' tools.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernClient } from '../../bindings/mcp/clients.js';
import { rpc } from '../../support/server.js';
import { startAuthzServer, type AuthzServer } from './support.js';

const FIN = 'FIN-SECRET-4411';
const HR = 'HR-SECRET-9127';

let s: AuthzServer;
let dir: string;

/** The Table Expert over one finance and one hr dataset (the CSV files written in beforeAll). */
const tableExpertOverBothUsecases = () => ({
  id: 'table-expert',
  builtin: 'table-expert',
  options: {
    datasets: [
      { name: 'ledger', usecase: 'finance', path: path.join(dir, 'ledger.csv') },
      { name: 'salaries', usecase: 'hr', path: path.join(dir, 'salaries.csv') },
    ],
  },
});
const keys: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'authz-usecase-'));
  writeFileSync(path.join(dir, 'ledger.csv'), `entry_id,memo,amount\n1,${FIN},100\n2,rent,50\n`);
  writeFileSync(path.join(dir, 'salaries.csv'), `employee_id,note,salary\n1,${HR},5000\n2,intern,1000\n`);
  s = await startAuthzServer({
    agents: [tableExpertOverBothUsecases(), { id: 'hr-echo', builtin: 'echo', usecase: 'hr' }],
  });
  // Bound by the key's usecase, and by holding only a usecase's MCP scope.
  keys.finance = await s.key('fin-bot', ['mcp:tools', 'a2a:discover', 'a2a:publish'], 'finance');
  keys.hr = await s.key('hr-bot', ['mcp:tools:hr', 'a2a:discover', 'a2a:publish']);
  keys.all = await s.key('analyst', ['mcp:tools', 'a2a:discover', 'a2a:publish']);
  keys.wildcard = await s.key('wild-bot', ['mcp:tools:*']);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function mcp(key: string) {
  return modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': key } });
}

const text = (r: { content?: Array<{ text?: string }> }) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

/** A tool call's outcome, whether the client throws or returns an error result. */
async function outcome(client: Awaited<ReturnType<typeof mcp>>, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content?: Array<{ text?: string }> };
    return JSON.stringify({ isError: r.isError === true, text: text(r) });
  } catch (e) {
    return JSON.stringify({ thrown: (e as { code?: number }).code, message: (e as Error).message });
  }
}

describe('MCP: the Table Expert shows a usecase-bound caller only its usecase', () => {
  it('query_table_expert reads the own usecase and cannot read the other', async () => {
    const c = await mcp(keys.finance!);
    try {
      const own = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } });
      expect(text(own as never)).toContain(FIN);
      const other = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } });
      expect((other as { isError?: boolean }).isError).toBe(true);
      expect(JSON.stringify(other)).not.toContain(HR);
    } finally {
      await c.close();
    }
  });

  it('search finds nothing of the other usecase; fetch of its table is not found', async () => {
    const c = await mcp(keys.finance!);
    try {
      const hits = await c.callTool({ name: 'search', arguments: { query: HR } });
      expect(JSON.stringify(hits)).not.toContain(HR);
      expect(JSON.stringify(hits)).not.toContain('salaries');
      const fetched = await c.callTool({ name: 'fetch', arguments: { id: 'table:salaries' } });
      expect((fetched as { isError?: boolean }).isError).toBe(true);
      expect(JSON.stringify(fetched)).not.toContain(HR);
      const ownHits = await c.callTool({ name: 'search', arguments: { query: FIN } });
      expect(JSON.stringify(ownHits)).toContain('ledger');
    } finally {
      await c.close();
    }
  });

  it('a caller holding only mcp:tools:hr is bound to hr', async () => {
    const c = await mcp(keys.hr!);
    try {
      const hr = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } });
      expect(text(hr as never)).toContain(HR);
      const fin = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } });
      expect(JSON.stringify(fin)).not.toContain(FIN);
    } finally {
      await c.close();
    }
  });

  it('an unbound caller sees both usecases', async () => {
    const c = await mcp(keys.all!);
    try {
      const r = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } });
      expect(text(r as never)).toContain(FIN);
      const r2 = await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } });
      expect(text(r2 as never)).toContain(HR);
    } finally {
      await c.close();
    }
  });

  it("mcp:tools:* means every usecase (the replaced service's wildcard), not a usecase named *", async () => {
    const c = await mcp(keys.wildcard!);
    try {
      expect(text((await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } })) as never)).toContain(FIN);
      expect(text((await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } })) as never)).toContain(HR);
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('hr-echo_echo');
    } finally {
      await c.close();
    }
  });

  it("an agent of another usecase is not in tools/list, and calling its tool is an unknown tool's error", async () => {
    const fin = await mcp(keys.finance!);
    const hr = await mcp(keys.hr!);
    try {
      const finTools = (await fin.listTools()).tools.map((t) => t.name);
      const hrTools = (await hr.listTools()).tools.map((t) => t.name);
      expect(hrTools).toContain('hr-echo_echo');
      expect(finTools).not.toContain('hr-echo_echo');
      expect(finTools).toContain('query_table_expert');
      const hidden = await outcome(fin, 'hr-echo_echo', { message: 'hi' });
      const unknown = await outcome(fin, 'no-such_tool', { message: 'hi' });
      expect(hidden.replaceAll('hr-echo_echo', 'X')).toBe(unknown.replaceAll('no-such_tool', 'X'));
    } finally {
      await fin.close();
      await hr.close();
    }
  });

  it('the item page of another usecase is not found', async () => {
    const own = await fetch(`${s.http}/a2a/table-expert/items/${encodeURIComponent('table:ledger')}`, { headers: { 'x-api-key': keys.finance!, accept: 'application/json' } });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain(FIN);
    const other = await fetch(`${s.http}/a2a/table-expert/items/${encodeURIComponent('table:salaries')}`, { headers: { 'x-api-key': keys.finance!, accept: 'application/json' } });
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain(HR);
  });
});

describe('A2A: the Table Expert skills see only the caller’s usecase', () => {
  const send = (key: string, data: Record<string, unknown>) =>
    rpc(`${s.http}/a2a/table-expert`, 'SendMessage', { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data }] } }, { 'x-api-key': key });

  it('query over the own usecase completes; over the other, no row of it is returned', async () => {
    const own = await send(keys.finance!, { skill: 'query', sql: 'SELECT memo FROM ledger' });
    expect(own.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(own.body)).toContain(FIN);
    const other = await send(keys.finance!, { skill: 'query', sql: 'SELECT note FROM salaries' });
    expect(['TASK_STATE_REJECTED', 'TASK_STATE_FAILED']).toContain(other.body.result.task.status.state);
    expect(JSON.stringify(other.body)).not.toContain(HR);
  });

  it('search and describe show nothing of the other usecase', async () => {
    const hits = await send(keys.finance!, { skill: 'search', query: HR });
    // The question itself is in the task's history; the answer (artifacts) must hold no hit of hr's.
    expect(hits.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(hits.body.result.task.artifacts ?? [])).not.toContain('salaries');
    const ownHits = await send(keys.finance!, { skill: 'search', query: FIN });
    expect(JSON.stringify(ownHits.body.result.task.artifacts ?? [])).toContain('ledger');
    const described = await send(keys.finance!, { skill: 'describe' });
    expect(described.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(described.body)).toContain('ledger');
    expect(JSON.stringify(described.body)).not.toContain('salaries');
  });

  it('the other usecase’s agent answers like an unknown agent', async () => {
    const hidden = await rpc(`${s.http}/a2a/hr-echo`, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { 'x-api-key': keys.finance! });
    const unknown = await rpc(`${s.http}/a2a/nope`, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { 'x-api-key': keys.finance! });
    expect(hidden.status).toBe(unknown.status);
    expect(JSON.stringify(hidden.body).replaceAll('hr-echo', 'X')).toBe(JSON.stringify(unknown.body).replaceAll('nope', 'X'));
  });
});

describe('auth.forceUsecase binds every caller', () => {
  it('an unbound credential sees only the forced usecase; one bound elsewhere sees none of it', async () => {
    const forced = await startAuthzServer({
      auth: { forceUsecase: 'finance' },
      agents: [tableExpertOverBothUsecases()],
    });
    try {
      const unbound = await forced.key('analyst', ['mcp:tools']);
      const hrBound = await forced.key('hr-bot', ['mcp:tools'], 'hr');
      const c = await modernClient(`${forced.http}/mcp`, { headers: { 'x-api-key': unbound } });
      try {
        expect(text((await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } })) as never)).toContain(FIN);
        expect(JSON.stringify(await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } }))).not.toContain(HR);
      } finally {
        await c.close();
      }
      const h = await modernClient(`${forced.http}/mcp`, { headers: { 'x-api-key': hrBound } });
      try {
        const r = await h.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } });
        expect(JSON.stringify(r)).not.toContain(FIN);
        expect(JSON.stringify(await h.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } }))).not.toContain(HR);
      } finally {
        await h.close();
      }
    } finally {
      await forced.stop();
    }
  });
});

describe('auth.forceUsecaseMode: override runs every call as the forced usecase', () => {
  it('a credential bound to another usecase (by its usecase or its mcp:tools:<u> scope) reads the forced usecase only', async () => {
    const forced = await startAuthzServer({
      auth: { forceUsecase: 'finance', forceUsecaseMode: 'override' },
      agents: [tableExpertOverBothUsecases(), { id: 'fin-echo', builtin: 'echo', usecase: 'finance' }, { id: 'hr-echo', builtin: 'echo', usecase: 'hr' }],
    });
    try {
      for (const key of [await forced.key('hr-bot', ['mcp:tools'], 'hr'), await forced.key('hr-scoped', ['mcp:tools:hr'])]) {
        const c = await modernClient(`${forced.http}/mcp`, { headers: { 'x-api-key': key } });
        try {
          expect(text((await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT memo FROM ledger' } })) as never)).toContain(FIN);
          expect(JSON.stringify(await c.callTool({ name: 'query_table_expert', arguments: { question: 'SELECT note FROM salaries' } }))).not.toContain(HR);
          const tools = (await c.listTools()).tools.map((t) => t.name);
          expect(tools).toContain('fin-echo_echo');
          expect(tools).not.toContain('hr-echo_echo');
        } finally {
          await c.close();
        }
      }
      // Authorization still holds: no MCP scope, no tools.
      const none = await forced.key('reader', ['a2a:discover']);
      const res = await fetch(`${forced.http}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': none },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status).toBe(403);
    } finally {
      await forced.stop();
    }
  });
});

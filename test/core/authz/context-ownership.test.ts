/**
 * Conversation contexts belong to the caller who started them (issue 19, D4). Alice asks the Table
 * Expert a question in context C; Bob sends a follow-up naming C. Bob's contextId is treated like
 * one nobody used: accepted as his own new conversation (the spec lets a server accept a
 * client-chosen contextId), never continued from Alice's question, on A2A and on MCP, and Alice's
 * conversation goes on unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernClient } from '../../bindings/mcp/clients.js';
import { rpc, userMessage } from '../../support/server.js';
import { readTask } from '../../agents/table-expert/helpers.js';
import { startAuthzServer, type AuthzServer } from './support.js';

let s: AuthzServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  s = await startAuthzServer({ agents: [{ id: 'table-expert', builtin: 'table-expert' }], mcp: { genericTools: true } });
  const scopes = ['a2a:discover', 'a2a:publish', 'mcp:tools'];
  alice = await s.key('alice', scopes);
  bob = await s.key('bob', scopes);
}, 60_000);

afterAll(async () => s?.stop());

async function ask(key: string, text: string, contextId?: string) {
  const r = await rpc(`${s.http}/a2a/table-expert`, 'SendMessage', { message: userMessage(text, contextId ? { contextId } : {}) }, { 'x-api-key': key });
  if (!r.body?.result?.task) throw new Error(`no task: ${JSON.stringify(r.body).slice(0, 300)}`);
  return readTask(r.body.result.task);
}

describe("another caller's contextId is not that caller's conversation", () => {
  it('over A2A: the follow-up is not refined from the other caller’s question, and both contexts stay apart', async () => {
    const first = await ask(alice, 'Revenue by category');
    expect(first.state).toBe('TASK_STATE_COMPLETED');
    const c = first.task.contextId as string;

    // Alice's own follow-up in C refines her question (the baseline this test relies on).
    const own = await ask(alice, 'only in 2024', c);
    expect(own.state).toBe('TASK_STATE_COMPLETED');
    expect(own.sql).toMatch(/2024/);
    expect(own.sql).toMatch(/category/i);

    // Bob names C: his message is accepted under that id (no substitution), as a fresh conversation.
    const theirs = await ask(bob, 'only in 2024', c);
    expect(theirs.task.contextId).toBe(c);
    expect(theirs.state).not.toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(theirs.task)).not.toMatch(/category/i);

    // Listing by context shows each caller only their own tasks in it.
    const bobs = await rpc(`${s.http}/a2a/table-expert`, 'ListTasks', { contextId: c }, { 'x-api-key': bob });
    expect(bobs.body.result.tasks.map((t: { id: string }) => t.id)).toEqual([theirs.task.id]);
    const alices = await rpc(`${s.http}/a2a/table-expert`, 'ListTasks', { contextId: c }, { 'x-api-key': alice });
    expect(alices.body.result.tasks.map((t: { id: string }) => t.id).sort()).toEqual([first.task.id, own.task.id].sort());

    // Bob's message did not become part of Alice's conversation: her next refinement still builds on hers.
    const again = await ask(alice, 'top 3', c);
    expect(again.state).toBe('TASK_STATE_COMPLETED');
    expect(again.data.rows).toHaveLength(3);
    expect(again.sql).toMatch(/category/i);
  });

  it('over MCP (send_message with contextId): the same', async () => {
    const first = await ask(alice, 'Revenue by category');
    const c = first.task.contextId as string;
    const client = await modernClient(`${s.http}/mcp`, { headers: { 'x-api-key': bob } });
    try {
      const r: any = await client.callTool({ name: 'send_message', arguments: { agentId: 'table-expert', text: 'only in 2024', contextId: c } });
      expect(r._meta['agentport/contextId']).toBe(c);
      expect(r._meta['agentport/state']).not.toBe('TASK_STATE_COMPLETED');
      expect(JSON.stringify(r)).not.toMatch(/category/i);
    } finally {
      await client.close();
    }
  });
});

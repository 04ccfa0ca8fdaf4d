/**
 * The resolve stage (src/core/stages/resolve.ts) is the one place along a call that asks the
 * registry: a call through the whole pipeline (resolve → authorize → quota → the task service,
 * in process over a real SQLite store) looks its agent up exactly once, and the stages behind
 * read the agent and the skill from the call's context.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type A2AHandler, CallContext } from '../../../src/core/a2a-handler.js';
import { authorizeStage } from '../../../src/core/stages/authorizing-handler.js';
import { AuthorizationPolicy } from '../../../src/core/authz/policy.js';
import { resolveStage } from '../../../src/core/stages/resolve.js';
import { UnknownTenant } from '../../../src/core/authz/unknown-agent.js';
import { compose, entering } from '../../../src/core/pipeline.js';
import { defineAgent } from '../../../src/agents/sdk/agent.js';
import { type Engine, startEngine, userMessage } from '../tasks/engine-harness.js';

const card = (skills: string[]) => ({ name: 'test', description: 'a test agent', capabilities: { streaming: true }, skills: skills.map((id) => ({ id, name: id, description: id, tags: [] })) });
const echo = defineAgent({ card: card(['talk']), execute: (ctx) => ctx.complete(`echo: ${ctx.text()}`) });
const twoSkills = defineAgent({ card: card(['sum', 'chart']), skillOf: (m) => (m.parts[0]?.text?.startsWith('chart') ? 'chart' : 'sum'), execute: (ctx) => ctx.complete('done') });

const policy = new AuthorizationPolicy({
  mode: 'required',
  anonymousExtendedCard: false,
  agents: { echo: { visibility: 'public', skillScopes: {} }, hidden: { visibility: 'extended', skillScopes: {} }, skilled: { visibility: 'public', skillScopes: {} } },
});
const alice = { subject: 'alice', authenticated: true, scopes: ['a2a:publish'] };

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
});

/** The pipeline over the engine's task service, counting the registry's lookups and keeping what the last stage saw. */
async function pipeline(): Promise<{ h: A2AHandler; lookups: string[]; seen: CallContext[] }> {
  engine = await startEngine({ echo, hidden: echo, skilled: twoSkills });
  const lookups: string[] = [];
  const get = engine.registry.get.bind(engine.registry);
  engine.registry.get = (id: string) => (lookups.push(id), get(id));
  const seen: CallContext[] = [];
  const h = compose([resolveStage(engine.registry, policy), authorizeStage(policy), entering('record', (c) => (seen.push(c), c))], engine.service);
  return { h, lookups, seen };
}

const ctx = (agentId: string, principal = alice): CallContext => new CallContext(agentId, principal);

describe('the resolve stage', () => {
  it('a SendMessage through the pipeline asks the registry once, and the task service runs with the agent it found', async () => {
    const { h, lookups, seen } = await pipeline();
    const r = await h.sendMessage(ctx('echo'), { message: userMessage('hi') });
    expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(lookups).toEqual(['echo']);
    expect(seen[0]!.agent?.id).toBe('echo');
    expect(seen[0]!.skills).toEqual(['talk']);
  });

  it('a GetTask asks the registry once too', async () => {
    const { h, lookups } = await pipeline();
    const r = await h.sendMessage(ctx('echo'), { message: userMessage('hi') });
    lookups.length = 0;
    const id = 'task' in r ? r.task.id : '';
    expect((await h.getTask(ctx('echo', { ...alice, scopes: ['a2a:discover'] }), { id })).id).toBe(id);
    expect(lookups).toEqual(['echo']);
  });

  it('puts the skill the agent names on the context (quotas and usage read it there)', async () => {
    const { h, seen } = await pipeline();
    await h.sendMessage(ctx('skilled'), { message: userMessage('chart of sales') });
    expect(seen[0]!.skills).toEqual(['chart']);
    expect(seen[0]!.skill).toBe('chart');
  });

  it('answers an agent the caller may not see as an unknown tenant, before authorization', async () => {
    const { h, seen } = await pipeline();
    await expect(h.sendMessage(ctx('hidden'), { message: userMessage('hi') })).rejects.toBeInstanceOf(UnknownTenant);
    expect(seen).toHaveLength(0);
  });

  it('fills the context the face built, in place: a stage before it sees no agent, the stages after and the task service see the agent and the skills', async () => {
    engine = await startEngine({ echo, hidden: echo, skilled: twoSkills });
    const atEntry: Array<[string, string | undefined, readonly string[] | undefined, readonly string[] | undefined]> = [];
    const probe = (name: string) => entering(name, (c) => (atEntry.push([name, c.agent?.id, c.skills, c.usecases]), c));
    const served: CallContext[] = [];
    const sendMessage = engine.service.sendMessage.bind(engine.service);
    engine.service.sendMessage = (c, req) => (served.push(c), sendMessage(c, req));
    const h = compose([probe('before'), resolveStage(engine.registry, policy), probe('resolved'), authorizeStage(policy), probe('authorized')], engine.service);
    const built = ctx('skilled');
    await h.sendMessage(built, { message: userMessage('chart of sales') });
    expect(atEntry).toEqual([
      ['before', undefined, undefined, undefined],
      ['resolved', 'skilled', ['chart'], undefined],
      ['authorized', 'skilled', ['chart'], undefined],
    ]);
    expect(served).toEqual([built]);
    expect(served[0]).toBe(built);
  });
});

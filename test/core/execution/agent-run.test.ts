/** AgentRun: the AgentContext an executor sees, built from one options object. */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agents/sdk/agent.js';
import { AgentRun, type AgentRunHost } from '../../../src/core/execution/agent-run.js';
import { defineAgent } from '../../../src/agents/sdk/agent.js';
import type { Message, Task } from '../../../src/protocol/a2a/types.js';

const definition = defineAgent({ card: { name: 't', description: 't', skills: [] }, execute() {} });
const message: Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }, { text: 'world' }] };

function recordingHost(owner = true): AgentRunHost & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return { events, onAgentEvent: (_run, e) => void events.push(e), stillOwner: async () => owner };
}

describe('AgentRun', () => {
  it('takes one options object; what is left out gets its default', () => {
    const run = new AgentRun({ host: recordingHost(), definition, agentId: 'a', taskId: 't1', contextId: 'c1', message });
    expect(run.agentId).toBe('a');
    expect(run.taskId).toBe('t1');
    expect(run.contextId).toBe('c1');
    expect(run.task).toBeUndefined();
    expect(run.hasTask).toBe(false);
    expect(run.referenceTasks).toEqual([]);
    expect(run.activatedExtensions).toEqual([]);
    expect(run.acceptedOutputModes).toEqual([]);
    expect(run.requestMetadata).toBeUndefined();
    expect(run.resumed).toBe(false);
    expect(run.usecases).toBeUndefined();
    expect(run.conversationKey).toBe(JSON.stringify(['', 'c1']));
    expect(run.text()).toBe('hello\nworld');
  });

  it("a run of an existing task has it, keys conversations by owner, and numbers new artifacts after the task's", () => {
    const host = recordingHost();
    const task: Task = {
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      artifacts: [
        { artifactId: 'x', parts: [] },
        { artifactId: 'y', parts: [] },
      ],
    };
    const run = new AgentRun({ host, definition, agentId: 'a', taskId: 't1', contextId: 'c1', message, task, resumed: true, owner: 'alice', usecases: ['u1'] });
    expect(run.hasTask).toBe(true);
    expect(run.resumed).toBe(true);
    expect(run.usecases).toEqual(['u1']);
    expect(run.conversationKey).toBe(JSON.stringify(['alice', 'c1']));
    expect(run.artifact('text')).toBe('artifact-3');
  });

  it('hands events to its host until finished, then drops them', () => {
    const host = recordingHost();
    const run = new AgentRun({ host, definition, agentId: 'a', taskId: 't1', contextId: 'c1', message });
    run.working('busy');
    run.finished = true;
    run.complete('done');
    expect(host.events).toEqual([{ kind: 'status', state: 'TASK_STATE_WORKING', message: 'busy' }]);
  });

  it('delivers messages in order, and cancel rejects a pending nextMessage() and aborts the signal', async () => {
    const run = new AgentRun({ host: recordingHost(), definition, agentId: 'a', taskId: 't1', contextId: 'c1', message });
    run.deliver({ ...message, messageId: 'm2' });
    run.deliver({ ...message, messageId: 'm3' });
    expect((await run.nextMessage()).messageId).toBe('m2');
    expect((await run.nextMessage()).messageId).toBe('m3');
    // Asked before the message comes: the waiting nextMessage() gets it.
    const waiting = run.nextMessage();
    run.deliver({ ...message, messageId: 'm4' });
    expect((await waiting).messageId).toBe('m4');
    const pending = run.nextMessage();
    const signal = run.signal;
    run.cancel();
    await expect(pending).rejects.toMatchObject({ kind: 'TaskNotCancelable' });
    expect(signal.aborted).toBe(true);
    expect(run.isCanceled).toBe(true);
    await expect(run.sleep(10)).rejects.toMatchObject({ kind: 'TaskNotCancelable' });
    expect(await run.stillOwner()).toBe(false);
  });

  it("takes its host as a second argument (the supervisor's runs) as from the options", () => {
    const host = recordingHost();
    const run = new AgentRun({ definition, agentId: 'a', taskId: 't1', contextId: 'c1', message }, host);
    run.working();
    expect(host.events.map((e) => e.kind)).toEqual(['status']);
  });

  it('asks its host whether it still owns the task while not canceled', async () => {
    const run = new AgentRun({ host: recordingHost(false), definition, agentId: 'a', taskId: 't1', contextId: 'c1', message });
    expect(await run.stillOwner()).toBe(false);
    const mine = new AgentRun({ host: recordingHost(true), definition, agentId: 'a', taskId: 't1', contextId: 'c1', message });
    expect(await mine.stillOwner()).toBe(true);
  });
});

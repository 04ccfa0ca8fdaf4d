/**
 * The tasks-extension fixtures of the MCP conformance suite (`slow_compute`, `failing_job`,
 * `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`), built as one A2A
 * agent so that they exercise the real tasks extension (src/bindings/mcp/tasks/mcp-tasks.ts) over durable
 * A2A tasks: `tools/call` starts an A2A task of this agent, `tasks/get|update|cancel` read, answer
 * and cancel it through the core like any agent's. Test support: the conformance test loads it as
 * an agent module (`agents: [{ id: 'mcp-conformance', module: <this file> }]`), and its fixture
 * module (fixture-module.ts, task-tools.ts) maps the fixture tool names to its skills.
 *
 * Inputs: an INPUT_REQUIRED status carries its MCP `inputRequests` in a data part
 * (MCP_INPUT_REQUESTS_KEY), and `tasks/update` brings the answers back as a data part
 * (MCP_INPUT_RESPONSES_KEY); each fixture keeps what it still waits for in that status.
 */
import { defineAgent, type AgentContext, type AgentDefinition } from '../../../src/agents/sdk/agent.js';
import type { JsonObject, Part } from '../../../src/protocol/a2a/types.js';
import { SKILL_METADATA_KEY } from '../../../src/bindings/mcp/tools/agent-tools.js';
import { FIXTURE_TASK_TOOLS } from './task-tools.js';
import { MCP_INPUT_REQUESTS_KEY, MCP_INPUT_RESPONSES_KEY } from '../../../src/bindings/mcp/tasks/mcp-tasks.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const elicit = (message: string, field: string, type: 'string' | 'boolean') => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] } },
});

/** The fixture's own data part of a message (arguments on the first, answers on follow-ups). */
function dataOf(parts: readonly Part[] | undefined): Record<string, unknown> {
  for (const p of parts ?? []) if ('data' in p && isObject(p.data)) return p.data;
  return {};
}

/** Pauses the task with the requests still open and what the fixture must remember. */
function ask(ctx: AgentContext, question: string, requests: Record<string, unknown>, memo: JsonObject): void {
  ctx.askInput([{ text: question }, { data: { ...memo, [MCP_INPUT_REQUESTS_KEY]: requests } as JsonObject }]);
}

async function sleepOrCanceled(ctx: AgentContext, ms: number): Promise<boolean> {
  try {
    await ctx.sleep(ms);
    return true;
  } catch (err) {
    if (ctx.signal.aborted) return false; // CancelTask: the core has written CANCELED
    throw err;
  }
}

function accepted(responses: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const r = responses[key];
  return isObject(r) && r.action === 'accept' && isObject(r.content) ? r.content : undefined;
}

async function run(ctx: AgentContext): Promise<void> {
  const before = dataOf(ctx.task?.status.message?.parts);
  const fixture = typeof before.fixture === 'string' ? before.fixture : ctx.requestMetadata?.[SKILL_METADATA_KEY];
  const args = dataOf(ctx.message.parts);
  const responses = isObject(args[MCP_INPUT_RESPONSES_KEY]) ? args[MCP_INPUT_RESPONSES_KEY] : {};
  switch (fixture) {
    case 'slow_compute': {
      const seconds = typeof args.seconds === 'number' && args.seconds >= 0 ? Math.min(args.seconds, 300) : 1;
      ctx.working();
      if (!(await sleepOrCanceled(ctx, seconds * 1000))) return;
      ctx.artifact(`slow_compute${typeof args.label === 'string' ? ` (${args.label})` : ''}: done after ${seconds}s`);
      return ctx.complete();
    }
    case 'failing_job':
      ctx.working();
      if (!(await sleepOrCanceled(ctx, 1000))) return;
      return ctx.fail('failing_job reports a tool execution error, on purpose');
    case 'protocol_error_job':
      // Crashes mid-run, once its task exists: the core ends it FAILED on the agent's behalf.
      ctx.working();
      if (!(await sleepOrCanceled(ctx, 100))) return;
      throw new Error('protocol_error_job crashes on purpose');
    case 'confirm_delete': {
      const filename = typeof before.filename === 'string' ? before.filename : typeof args.filename === 'string' ? args.filename : 'the file';
      const answer = accepted(responses, 'confirm');
      if (answer) return ctx.complete(answer.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`);
      return ask(ctx, `Delete ${filename}?`, { confirm: elicit(`Delete ${filename}?`, 'confirm', 'boolean') }, { fixture, filename });
    }
    case 'multi_input': {
      const open: Record<string, unknown> = isObject(before[MCP_INPUT_REQUESTS_KEY])
        ? { ...before[MCP_INPUT_REQUESTS_KEY] }
        : { first: elicit('First input: your name?', 'name', 'string'), second: elicit('Second input: confirm?', 'confirm', 'boolean') };
      const got: JsonObject = isObject(before.answers) ? { ...(before.answers as JsonObject) } : {};
      for (const key of Object.keys(open)) {
        const answer = accepted(responses, key);
        if (answer) {
          got[key] = answer as JsonObject;
          delete open[key];
        }
      }
      if (Object.keys(open).length === 0) return ctx.complete(`multi_input received ${JSON.stringify(got)}`);
      return ask(ctx, `${Object.keys(open).length} input(s) still needed`, open, { fixture, answers: got });
    }
    case 'test_tool_with_task': {
      const name = typeof args.user_name === 'string' ? args.user_name : 'stranger';
      ctx.working();
      if (!(await sleepOrCanceled(ctx, 200))) return;
      return ctx.complete(`Hello, ${name}! (gathered before the task started)`);
    }
    default:
      return ctx.reject(`No fixture named ${String(fixture)}`);
  }
}

export const conformanceTaskAgent: AgentDefinition = defineAgent({
  card: {
    name: 'MCP conformance fixtures',
    description: 'The tasks-extension fixtures of the MCP conformance suite, as an A2A agent (test instances only).',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: Object.entries(FIXTURE_TASK_TOOLS).map(([id, t]) => ({ id, name: id, description: t.description, tags: ['conformance'] })),
  },
  execute: run,
});

export default conformanceTaskAgent;

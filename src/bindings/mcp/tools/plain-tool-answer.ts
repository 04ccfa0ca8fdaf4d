/**
 * The answer of a plain `tools/call` (plain-tool-call.ts says which calls are plain): the same
 * `callAgentTool` the SDK path runs, answered as the SDK would — JSON, and modern results carry
 * `serverInfo` and `resultType`. A client that declared the tasks extension gets a task handle.
 *
 * Whether the caller may use the tool is decided once, by the core when the call reaches it
 * (core/stages/authorizing-handler.ts; mcp-server-factory.ts `plainTool` says when the binding
 * still asks first). When the core refuses, before any task exists, the answer is undefined and
 * the call goes on to the SDK path, whose surface does not show this caller the tool: it answers
 * exactly as for a tool that is not there, as it always did.
 */
import type { Principal } from '../../../core/authz/principal.js';
import { carryUsage, type UsageDraft } from '../../../core/usage/usage-draft.js';
import { A2AError } from '../../../protocol/a2a/errors.js';
import { callAgentTool, isCoreRefusal, ToolRefused, type AgentToolCallDeps, type AgentToolSpec } from './agent-tools.js';
import { json, type Answer } from '../answer.js';
import { startToolTask } from '../tasks/mcp-tasks.js';
import { plainToolContext, SERVER_INFO_KEY, type CallSignal, type PlainToolCall } from './plain-tool-call.js';
import { errorResult } from './tool-result.js';

export interface PlainToolDeps extends AgentToolCallDeps {
  /** how the server names itself in modern results (`serverInfo`) */
  info: { name: string; title: string; version: string };
}

/** The caller, and the usage draft of its request that the core fills (none for a public discovery call). */
export interface PlainCaller {
  principal: Principal;
  usage: UsageDraft | undefined;
}

export async function answerPlainToolCall(d: PlainToolDeps, call: PlainToolCall, spec: AgentToolSpec, caller: PlainCaller, signal: CallSignal): Promise<Answer | undefined> {
  const { principal, usage } = caller;
  if (call.tasks) {
    const created = await startToolTask(d.handler, spec, call.args, usage ? carryUsage(principal, usage) : principal).catch((err: unknown) => {
      if (isCoreRefusal(err)) return undefined;
      if (err instanceof A2AError) return { ...errorResult(err.message), resultType: 'complete' };
      throw err;
    });
    if (!created) return undefined;
    return json(200, { result: { ...created, _meta: { [SERVER_INFO_KEY]: d.info } }, jsonrpc: '2.0', id: call.id });
  }
  let result: Awaited<ReturnType<typeof callAgentTool>>;
  try {
    result = await callAgentTool(d, spec, call.args, principal, plainToolContext(call, signal), call.era, 'throw', usage);
  } catch (err) {
    if (err instanceof ToolRefused) return undefined;
    throw err;
  }
  const out = call.era === 'modern' ? { ...result, _meta: { ...result._meta, [SERVER_INFO_KEY]: d.info }, resultType: 'complete' } : result;
  return json(200, { result: out, jsonrpc: '2.0', id: call.id });
}

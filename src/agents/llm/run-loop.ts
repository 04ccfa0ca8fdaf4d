/**
 * One run of an LLM agent: model call, tool calls (in parallel), results back to the model, until
 * the model answers without tools, `maxSteps` or the token budget is reached, the run times out,
 * or the model or a sub-agent asks the user. Everything the next run needs is written to the
 * task's log as it happens (run-steps.ts), so a follow-up, a restart or another replica continues
 * from the log. Cancel aborts the model stream and cancels the sub-tasks still running.
 */
import type { AgentContext, HostedAgents } from '../../core/agents/agent-definition.js';
import { inSpan, SpanKind, type Context } from '../../observability/tracing/index.js';
import type { LlmAgentConfig } from '../../config/config.js';
import type { Part } from '../../protocol/a2a/types.js';
import { agentTools, ASK_USER_TOOL, type AgentTool } from './agent-tools.js';
import { ModelError, type ModelProvider, type ModelStep, type ToolCall, type Turn } from './model.js';
import { messageText, rebuild, stepPart, type StepRecord } from './run-steps.js';
import { continueSubTask, runToolCall, type ToolRun } from './tool-calls.js';
import { TOOL_DATA_NOTICE, toolResultText } from './tool-result-text.js';

const SUB_INPUT = 'sub_input';

export async function runLoop(cfg: LlmAgentConfig, provider: ModelProvider, ctx: AgentContext): Promise<void> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const running = new Map<string, { agentId: string; taskId: string }>();
  const agents = ctx.agents;
  // Canceled or timed out: the sub-tasks still running are canceled as the caller.
  const stopSubTasks = () => {
    for (const { agentId, taskId } of running.values()) void agents?.cancelTask(agentId, taskId).catch(() => {});
    running.clear();
  };
  signal.addEventListener('abort', stopSubTasks, { once: true });
  try {
    await loop(cfg, provider, ctx, signal, running);
  } catch (e) {
    if (ctx.signal.aborted) return; // canceled: the core has ended the task
    if (timeout.aborted) return ctx.fail(`The agent did not finish within ${cfg.timeoutMs} ms (agents[].llm.timeoutMs).`);
    if (e instanceof ModelError) return ctx.fail(failureText(e));
    throw e;
  } finally {
    signal.removeEventListener('abort', stopSubTasks);
  }
}

function failureText(e: ModelError): string {
  switch (e.kind) {
    case 'context_length':
      return "The conversation is too long for the model's context window; start a new task.";
    case 'refusal':
      return `The model refused to answer: ${e.message.replace(/^the model refused: /, '')}`;
    default:
      return `The model call failed: ${e.message}.`;
  }
}

async function loop(cfg: LlmAgentConfig, provider: ModelProvider, ctx: AgentContext, signal: AbortSignal, running: Map<string, { agentId: string; taskId: string }>): Promise<void> {
  const previous = ctx.referenceTasks.filter((t) => t.contextId === ctx.contextId);
  const conv = rebuild(previous, ctx.task, ctx.resumed ? undefined : ctx.message);
  const agents = ctx.agents;
  const tools = agentTools(agents, cfg.tools);
  const definitions = [...[...tools.values()].map((t) => t.definition), ...(cfg.askUser ? [ASK_USER_TOOL] : [])];
  const system = `${cfg.instructions.trim()}\n\n${TOOL_DATA_NOTICE}`;
  let pending: ToolCall[] = conv.pendingCalls;

  if (!ctx.resumed) {
    const waiting = conv.waiting;
    const text = messageText(ctx.message);
    if (waiting?.kind === 'ask_user') {
      conv.turns.push({ role: 'tool', results: waiting.callIds.map((id) => ({ callId: id, name: 'ask_user', content: JSON.stringify({ source: 'user', data: text }), isError: false })) });
    } else if (waiting?.kind === SUB_INPUT && agents) {
      ctx.working(`Passing the answer to ${waiting.agentId}`);
      const run = await inToolSpan(ctx, waiting.name, (trace) =>
        continueSubTask(agents, waiting.agentId, waiting.taskId, ctx.message.parts, { signal, trace, onTask: (taskId) => running.set(waiting.callId, { agentId: waiting.agentId, taskId }) }),
      );
      running.delete(waiting.callId);
      if (run.kind === 'asks') return pause(ctx, { ...waiting, state: run.state, question: run.question }, run.state);
      conv.turns.push({ role: 'tool', results: [recordResult(ctx, cfg, { id: waiting.callId, name: waiting.name }, waiting, run)] });
    } else {
      conv.turns.push({ role: 'user', text });
    }
  }
  ctx.working();

  for (;;) {
    if (pending.length) {
      const asked = await runTools(cfg, ctx, tools, pending, conv.turns, signal, running);
      if (asked) return;
      pending = [];
    }
    if (conv.steps >= cfg.maxSteps) return ctx.fail(`The agent stopped after ${cfg.maxSteps} model calls without an answer (agents[].llm.maxSteps).`);
    if (cfg.tokenBudget !== undefined && conv.tokens >= cfg.tokenBudget) return ctx.fail(`The agent spent its token budget (${conv.tokens} of ${cfg.tokenBudget} tokens, agents[].llm.tokenBudget).`);
    const stepNo = conv.steps + 1;
    const started = performance.now();
    const step = await modelCall(cfg, provider, ctx, signal, { system, turns: conv.turns, tools: definitions }, `response-${stepNo}`);
    conv.steps = stepNo;
    conv.tokens += step.usage.promptTokens + step.usage.completionTokens;
    ctx.reportUsage({
      model: step.model ?? cfg.model,
      promptTokens: step.usage.promptTokens,
      completionTokens: step.usage.completionTokens,
      cachedTokens: step.usage.cachedTokens,
      cacheWriteTokens: step.usage.cacheWriteTokens ?? 0,
    });
    const record: StepRecord = {
      kind: 'model',
      step: stepNo,
      ...(step.model ? { model: step.model } : {}),
      text: step.text,
      toolCalls: step.toolCalls,
      finishReason: step.finishReason,
      usage: step.usage,
      latencyMs: Math.round(performance.now() - started),
    };
    conv.turns.push({ role: 'assistant', text: step.text, toolCalls: step.toolCalls });
    if (step.toolCalls.length === 0) {
      if (step.finishReason === 'length' || step.finishReason === 'max_tokens') return ctx.fail(`The model's answer was cut off at ${cfg.maxOutputTokens} tokens (agents[].llm.maxOutputTokens).`);
      return ctx.complete([{ text: `Answered after ${stepNo} model call${stepNo === 1 ? '' : 's'}.` }, stepPart(record)]);
    }
    ctx.working([{ text: `Model call ${stepNo}: ${step.toolCalls.map((c) => c.name).join(', ')}` }, stepPart(record)]);
    pending = step.toolCalls;
  }
}

/** One model call in a `chat` span (OTel GenAI), its text streamed as chunks of one artifact. */
function modelCall(cfg: LlmAgentConfig, provider: ModelProvider, ctx: AgentContext, signal: AbortSignal, request: Parameters<ModelProvider['stream']>[0], artifactId: string): Promise<ModelStep> {
  const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider.name, 'gen_ai.request.model': cfg.model, 'gen_ai.request.max_tokens': cfg.maxOutputTokens };
  return inSpan(`chat ${cfg.model}`, { kind: SpanKind.CLIENT, parent: ctx.trace, attributes }, async (_trace, span) => {
    // One chunk is held back, so the last one can say lastChunk without an empty part.
    let held: string | undefined;
    let sent = false;
    const send = (text: string, lastChunk: boolean) => {
      ctx.artifact([{ text }], { artifactId, name: 'response', append: sent, lastChunk });
      sent = true;
    };
    const step = await provider.stream(request, {
      signal,
      onText: (delta) => {
        if (held !== undefined) send(held, false);
        held = delta;
      },
    });
    if (held !== undefined) send(held, true);
    span?.setAttribute('gen_ai.usage.input_tokens', step.usage.promptTokens);
    span?.setAttribute('gen_ai.usage.output_tokens', step.usage.completionTokens);
    span?.setAttribute('gen_ai.usage.cache_read.input_tokens', step.usage.cachedTokens);
    if (step.usage.cacheWriteTokens) span?.setAttribute('gen_ai.usage.cache_creation.input_tokens', step.usage.cacheWriteTokens);
    if (step.model) span?.setAttribute('gen_ai.response.model', step.model);
    span?.setAttribute('gen_ai.response.finish_reasons', [step.finishReason]);
    return step;
  });
}

function inToolSpan<T>(ctx: AgentContext, name: string, fn: (trace: Context | undefined) => Promise<T>): Promise<T> {
  return inSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, parent: ctx.trace, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name } }, (trace) => fn(trace));
}

/**
 * Runs the model's tool calls in parallel and appends their results as one tool turn. True when
 * the run paused for the user (ask_user, or a sub-agent's question).
 */
async function runTools(
  cfg: LlmAgentConfig,
  ctx: AgentContext,
  tools: Map<string, AgentTool>,
  calls: ToolCall[],
  turns: Turn[],
  signal: AbortSignal,
  running: Map<string, { agentId: string; taskId: string }>,
): Promise<boolean> {
  const agents = ctx.agents;
  const askUser = calls.filter((c) => c.name === ASK_USER_TOOL.name && cfg.askUser);
  const others = calls.filter((c) => !askUser.includes(c));
  const outcomes = await Promise.all(others.map((call) => runOne(ctx, agents, tools.get(call.name), call, signal, running)));
  const results = [];
  let surfaced: Extract<StepRecord, { kind: 'sub_input' }> | undefined;
  for (const [i, o] of outcomes.entries()) {
    const call = others[i]!;
    if (o.run.kind === 'asks' && !surfaced && askUser.length === 0) {
      surfaced = { kind: SUB_INPUT, callId: call.id, name: call.name, agentId: o.tool!.agentId, skillId: o.tool!.skillId, taskId: o.run.taskId, state: o.run.state, question: o.run.question };
      continue;
    }
    const run: ToolRun = o.run.kind === 'asks' ? { kind: 'done', status: 'needs_input', text: `The agent asked: ${o.run.question}`, taskId: o.run.taskId } : o.run;
    if (o.run.kind === 'asks') void agents?.cancelTask(o.tool!.agentId, o.run.taskId).catch(() => {});
    results.push(recordResult(ctx, cfg, call, o.tool ?? { agentId: '', skillId: '' }, run));
  }
  if (results.length) turns.push({ role: 'tool', results });
  if (surfaced) {
    pause(ctx, surfaced, surfaced.state as 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_AUTH_REQUIRED');
    return true;
  }
  if (askUser.length) {
    const question = askUser.map((c) => (typeof c.arguments.question === 'string' ? c.arguments.question : JSON.stringify(c.arguments))).join('\n');
    pause(ctx, { kind: 'ask_user', callIds: askUser.map((c) => c.id), question }, 'TASK_STATE_INPUT_REQUIRED');
    return true;
  }
  return false;
}

async function runOne(
  ctx: AgentContext,
  agents: HostedAgents | undefined,
  tool: AgentTool | undefined,
  call: ToolCall,
  signal: AbortSignal,
  running: Map<string, { agentId: string; taskId: string }>,
): Promise<{ tool?: AgentTool; run: ToolRun }> {
  if (!tool || !agents) return { run: { kind: 'done', status: 'error', text: `There is no tool named "${call.name}".` } };
  let shown = false;
  const show = (taskId?: string) => {
    if (shown) return;
    shown = true;
    const record: StepRecord = { kind: 'tool_call', callId: call.id, name: call.name, agentId: tool.agentId, skillId: tool.skillId, arguments: call.arguments, ...(taskId ? { taskId } : {}) };
    ctx.working([{ text: `Calling ${tool.agentId} (${tool.skillId})` }, stepPart(record)]);
  };
  const run = await inToolSpan(ctx, call.name, (trace) =>
    runToolCall(agents, tool, call, {
      signal,
      trace,
      onTask: (taskId) => {
        running.set(call.id, { agentId: tool.agentId, taskId });
        show(taskId);
      },
    }),
  );
  running.delete(call.id);
  show();
  return { tool, run };
}

function recordResult(ctx: AgentContext, cfg: LlmAgentConfig, call: { id: string; name: string }, tool: { agentId: string; skillId: string }, run: ToolRun) {
  const done = run.kind === 'done' ? run : { status: 'needs_input', text: run.question, taskId: run.taskId };
  const isError = done.status !== 'completed' && done.status !== 'answered';
  const { content } = toolResultText({ agentId: tool.agentId, skillId: tool.skillId, status: done.status, text: done.text, ...(done.taskId ? { taskId: done.taskId } : {}) }, cfg.maxToolResultChars);
  const record: StepRecord = {
    kind: 'tool_result',
    callId: call.id,
    name: call.name,
    agentId: tool.agentId,
    skillId: tool.skillId,
    status: done.status,
    ...(done.taskId ? { taskId: done.taskId } : {}),
    content,
    isError,
  };
  ctx.working([{ text: `${tool.agentId || call.name} ${isError ? `did not answer (${done.status})` : 'answered'}` }, stepPart(record)]);
  return { callId: call.id, name: call.name, content, isError };
}

/** The task stops for the user: INPUT_REQUIRED (or the sub-agent's AUTH_REQUIRED) with the question. */
function pause(ctx: AgentContext, record: Extract<StepRecord, { kind: 'ask_user' } | { kind: 'sub_input' }>, state: string): void {
  const parts: Part[] = [{ text: record.question }, stepPart(record)];
  if (state === 'TASK_STATE_AUTH_REQUIRED') ctx.requireAuth(parts);
  else ctx.askInput(parts);
}

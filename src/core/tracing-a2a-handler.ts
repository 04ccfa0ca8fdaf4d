/**
 * The core operation's span (docs/observability.md, "Traces"): every A2A operation a binding calls,
 * as a child of the request's span, named `core <Operation>`. Stands in front of the handler only
 * when tracing is on (start.ts), so a server without tracing calls the handler directly.
 */
import type { A2AHandler, CallContext, StreamItem } from './a2a-handler.js';
import { inSpan, traceIterable, startSpan } from '../observability/tracing/index.js';

/** The A2A method names (the proto's), as the request spans are named too. */
const OPERATIONS = {
  sendMessage: 'SendMessage',
  getTask: 'GetTask',
  listTasks: 'ListTasks',
  cancelTask: 'CancelTask',
  createTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  getTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  listTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigs',
  deleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  getExtendedAgentCard: 'GetExtendedAgentCard',
} as const;

const STREAMS = { sendStreamingMessage: 'SendStreamingMessage', subscribeToTask: 'SubscribeToTask' } as const;

function attributes(ctx: CallContext) {
  return { 'agentport.agent': ctx.agentId, ...(ctx.surface ? { 'agentport.surface': ctx.surface } : {}) };
}

export function tracingA2AHandler(inner: A2AHandler): A2AHandler {
  const traced: Partial<Record<keyof A2AHandler, unknown>> = {
    agentExtensions: (agentId: string) => inner.agentExtensions(agentId),
    hasAgent: (...a: Parameters<A2AHandler['hasAgent']>) => inner.hasAgent(...a),
  };
  for (const [method, name] of Object.entries(OPERATIONS) as [keyof typeof OPERATIONS, string][]) {
    const call = inner[method] as (ctx: CallContext, ...rest: unknown[]) => Promise<unknown>;
    traced[method] = (ctx: CallContext, ...rest: unknown[]) => inSpan(`core ${name}`, { attributes: attributes(ctx) }, () => call.call(inner, ctx, ...rest));
  }
  for (const [method, name] of Object.entries(STREAMS) as [keyof typeof STREAMS, string][]) {
    const call = inner[method] as (ctx: CallContext, ...rest: unknown[]) => AsyncIterable<StreamItem>;
    traced[method] = (ctx: CallContext, ...rest: unknown[]) => traceIterable(call.call(inner, ctx, ...rest), () => startSpan(`core ${name}`, { attributes: attributes(ctx) }));
  }
  return traced as A2AHandler;
}

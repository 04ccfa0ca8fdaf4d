/**
 * The core operation's span (docs/observability.md, "Traces"): every A2A operation a binding calls,
 * as a child of the request's span, named `core <Operation>`. Stands in front of the handler only
 * when tracing is on (start.ts), so a server without tracing calls the handler directly. The
 * parent is the server span the face put into the call's usage draft; the handler behind gets the
 * operation span's context as CallContext.trace.
 */
import type { A2AHandler, CallContext, StreamItem } from './a2a-handler.js';
import { inSpan, traceIterable, startSpan, type Attributes, type Context } from '../observability/tracing/index.js';
import { usageCarriedBy } from './usage/usage-draft.js';

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

/** The span the call arrived in: the draft's (faces put it there), or one a caller already set. */
function parentOf(ctx: CallContext): Context | undefined {
  return ctx.trace ?? (ctx.usage ?? usageCarriedBy(ctx.principal))?.trace;
}

function attributes(ctx: CallContext): Attributes {
  const a: Attributes = { 'agentport.agent': ctx.agentId };
  if (ctx.surface) a['agentport.surface'] = ctx.surface;
  return a;
}

export function tracingA2AHandler(inner: A2AHandler): A2AHandler {
  const traced: Partial<Record<keyof A2AHandler, unknown>> = {
    agentExtensions: (agentId: string) => inner.agentExtensions(agentId),
    hasAgent: (...a: Parameters<A2AHandler['hasAgent']>) => inner.hasAgent(...a),
  };
  for (const [method, name] of Object.entries(OPERATIONS) as [keyof typeof OPERATIONS, string][]) {
    const call = inner[method] as (ctx: CallContext, ...rest: unknown[]) => Promise<unknown>;
    traced[method] = (ctx: CallContext, ...rest: unknown[]) => inSpan(`core ${name}`, { parent: parentOf(ctx), attributes: attributes(ctx) }, (trace) => call.call(inner, { ...ctx, trace }, ...rest));
  }
  for (const [method, name] of Object.entries(STREAMS) as [keyof typeof STREAMS, string][]) {
    const call = inner[method] as (ctx: CallContext, ...rest: unknown[]) => AsyncIterable<StreamItem>;
    traced[method] = (ctx: CallContext, ...rest: unknown[]) => {
      const parent = parentOf(ctx);
      return traceIterable(
        () => ({ span: startSpan(`core ${name}`, { parent, attributes: attributes(ctx) }), parent }),
        (trace) => call.call(inner, { ...ctx, trace }, ...rest),
      );
    };
  }
  return traced as A2AHandler;
}

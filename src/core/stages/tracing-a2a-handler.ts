/**
 * The trace stage: the core operation's span (docs/observability.md, "Traces"): every A2A operation
 * a binding calls, as a child of the request's span, named `core <Operation>`. In the pipeline
 * only when tracing is on (start.ts), so a server without tracing has no such stage. The
 * parent is the server span the face put into the call's usage draft; the handler behind gets the
 * operation span's context as CallContext.trace.
 */
import type { CallContext, StreamItem } from '../a2a-handler.js';
import { inSpan, traceIterable, startSpan, type Attributes, type Context } from '../../observability/tracing/index.js';
import { usageCarriedBy } from '../usage/usage-draft.js';
import { OPERATIONS } from '../operations.js';
import type { Stage } from '../pipeline.js';

/** Each operation's span name, made once: a name built per call is a new string each request, kept until its batch is exported. */
const SPAN_NAMES = new Map(OPERATIONS.map((o) => [o.name, `core ${o.name}`]));

/** The span the call arrived in: the draft's (faces put it there), or one a caller already set. */
function parentOf(ctx: CallContext): Context | undefined {
  return ctx.trace ?? (ctx.usage ?? usageCarriedBy(ctx.principal))?.trace;
}

function attributes(ctx: CallContext): Attributes {
  const a: Attributes = { 'agentport.agent': ctx.agentId };
  if (ctx.surface) a['agentport.surface'] = ctx.surface;
  return a;
}

export const traceStage: Stage = {
  name: 'trace',
  call(ctx, call, next) {
    const name = SPAN_NAMES.get(call.operation.name) ?? `core ${call.operation.name}`;
    const parent = parentOf(ctx);
    if (call.operation.stream) {
      return traceIterable(
        () => ({ span: startSpan(name, { parent, attributes: attributes(ctx) }), parent }),
        (trace) => {
          ctx.traced(trace);
          return next(ctx) as AsyncIterable<StreamItem>;
        },
      );
    }
    return inSpan(name, { parent, attributes: attributes(ctx) }, (trace) => {
      ctx.traced(trace);
      return next(ctx) as Promise<unknown>;
    });
  },
};

/**
 * Request metrics from the end of every call (UsageRecorder's call observers, src/core/usage): the
 * request counter, the A2A duration histogram and OpenTelemetry's MCP operation duration. The
 * shapes are the recorder's, restated here because observability sits below core.
 */
import { OTHER } from './bounded-label.js';
import type { Metrics } from './metrics.js';

/** What the metrics read of a call's draft (src/core/usage/usage-draft.ts). */
export interface EndedCall {
  /** binding and version: 'a2a-jsonrpc/1.0', 'mcp/2025-11-25' */
  face: string;
  operation?: string;
  agent?: string;
  tool?: string;
  outcome?: string;
  error: boolean;
  /** an MCP call's JSON-RPC error code */
  jsonRpcCode?: number;
}

/** How the answer went out (src/core/usage/usage-recorder.ts CallEnd). */
export interface CallEnding {
  status: number;
  latencyMs: number;
}

export interface CallMetricsOptions {
  /**
   * The HTTP status equivalent to an error outcome (an A2A error reason), for calls that failed
   * inside an HTTP 200 answer (JSON-RPC): the status label then says the call failed, on every face.
   */
  statusOf?: (outcome: string) => number | undefined;
}

export class CallMetrics {
  constructor(
    private readonly m: Metrics,
    private readonly o: CallMetricsOptions = {},
  ) {}

  callEnded(d: EndedCall, end: CallEnding): void {
    const failed = d.error || end.status >= 400;
    const ok = !failed;
    // A call the core answered (even with an error) was dispatched by its binding: its face and
    // operation are names the server knows, not whatever a refused request carried.
    const dispatched = ok || d.error;
    const l = this.m.labels;
    const face = l.face.of(d.face, dispatched);
    const operation = l.operation.of(d.operation, dispatched) || 'unknown';
    const status = String(d.error && end.status < 400 && d.outcome !== undefined ? (this.o.statusOf?.(d.outcome) ?? end.status) : end.status);
    this.m.requests.inc([face, operation, status]);
    const seconds = end.latencyMs / 1000;
    if (d.face.startsWith('a2a-')) {
      const outcome = failed ? l.outcome.of(d.outcome ?? `HTTP_${status}`, true) : 'ok';
      this.m.a2aDuration.observe([face, operation, l.agent.of(d.agent, ok), outcome], seconds);
    } else if (d.face.startsWith('mcp/')) {
      this.m.mcpDuration.observe(
        [
          operation,
          // A tool name is the caller's word until a tool of an agent answered it.
          l.tool.of(d.tool, ok && d.agent !== undefined),
          // OpenTelemetry's MCP conventions: a JSON-RPC error's type is its code as a string.
          failed ? l.outcome.of(d.jsonRpcCode !== undefined ? String(d.jsonRpcCode) : (d.outcome ?? status), true) : '',
          face === OTHER ? OTHER : d.face.slice('mcp/'.length),
        ],
        seconds,
      );
    }
  }
}

/**
 * The access log: one info line per call on the `access` logger, written as the answer goes out.
 * It observes the usage recorder (src/core/usage/usage-recorder.ts `observe`), so it reads the
 * draft every face and the core already fill in, and costs nothing when it is off (it is then not
 * registered, and no draft is opened for it).
 */

/** What a call told about itself (the usage draft, src/core/usage/usage-draft.ts). */
export interface AccessLogCall {
  face: string;
  operation?: string;
  agent?: string;
  subject?: string;
  clientId?: string;
  keyId?: string;
  outcome?: string;
  bytesIn?: number;
  requestId?: string;
  traceId?: string;
}

/** How its answer went out (CallEnd). */
export interface AccessLogEnd {
  status: number;
  latencyMs: number;
  bytesOut?: number;
  aborted?: boolean;
}

export class AccessLog {
  constructor(private readonly log: { info(obj: object, msg?: string): void }) {}

  callEnded(d: AccessLogCall, end: AccessLogEnd): void {
    // Field names: reqId as in every other line of the request; trace_id as OpenTelemetry's log
    // data model spells it, so a log backend links the line to its trace.
    this.log.info(
      {
        reqId: d.requestId,
        trace_id: d.traceId,
        subject: d.subject,
        client: d.clientId,
        keyId: d.keyId,
        face: d.face,
        operation: d.operation,
        agent: d.agent,
        status: end.status,
        outcome: d.outcome,
        // absent when the listener does not measure them (gRPC)
        bytesIn: d.bytesIn,
        bytesOut: end.bytesOut,
        latencyMs: Math.round(end.latencyMs * 10) / 10,
        aborted: end.aborted || undefined,
      },
      'request',
    );
  }
}

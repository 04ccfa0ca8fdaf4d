/**
 * The 2025-era standalone server stream (Streamable HTTP, 2025-03-26 … 2025-11-25: "GET to the
 * MCP endpoint … with Accept: text/event-stream" opens an SSE stream on which the server MAY send
 * requests and notifications unrelated to any client request). Our stateless legacy face has no
 * session to hang it on, so the SDK answered 405; legacy clients that ask for it (and treat a 405
 * as "no stream", losing list changes) now get a stream that carries the list-change
 * notifications of the shared bus (`notifications/tools/list_changed`, …), with SSE comments as
 * keep-alives. No server requests are sent on it: elicitation and sampling go through MRTR or a
 * legacy session (legacy-sessions.ts). It ends when the client goes or the endpoint closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';

const NOTIFICATION_OF: Record<ServerEvent['kind'], string> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
  resource_updated: 'notifications/resources/updated',
};

/** A GET that asks for the server stream: it accepts text/event-stream and names no session. */
export function wantsServerStream(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || req.headers['mcp-session-id'] !== undefined) return false;
  const accept = req.headers.accept ?? '';
  return accept.split(',').some((t) => t.split(';')[0]!.trim().toLowerCase() === 'text/event-stream');
}

export interface ServerStreams {
  open(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open stream (server shutdown). */
  close(): void;
}

export function serverStreams(bus: Pick<ServerEventBus, 'subscribe'>, keepAliveMs: number): ServerStreams {
  const open = new Set<ServerResponse>();
  return {
    open(req, res) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
      res.write(': stream open\n\n');
      open.add(res);
      const unsubscribe = bus.subscribe((e) => {
        const params = e.kind === 'resource_updated' ? { uri: e.uri } : undefined;
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: NOTIFICATION_OF[e.kind], ...(params ? { params } : {}) })}\n\n`);
      });
      const timer = keepAliveMs > 0 ? setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs) : undefined;
      timer?.unref();
      const end = () => {
        unsubscribe();
        if (timer) clearInterval(timer);
        open.delete(res);
      };
      req.on('close', end);
      res.on('close', end);
    },
    close() {
      for (const res of open) res.end();
      open.clear();
    },
  };
}

/**
 * A transport whose adapter module is imported on its first call. The gRPC adapters pull in
 * @grpc/grpc-js, @grpc/proto-loader and protobufjs (134 CommonJS files); a client that talks
 * JSON-RPC or HTTP+JSON, and every `agentport` command that never makes a gRPC call (`--help`,
 * `card`, `send` to a JSON-RPC agent), does not load them (issue 26: the CLI's start-up is paid by
 * every test that spawns it).
 */
import type { Binding, StreamEvent, Transport } from './transport.js';

/** `open` builds the real transport; it runs once, on the first call. */
export function lazyTransport(binding: Binding, protocolVersion: string, url: string, open: () => Promise<Transport>): Transport {
  let opened: Promise<Transport> | undefined;
  let transport: Transport | undefined;
  let closed = false;
  const real = (): Promise<Transport> =>
    (opened ??= open().then((t) => {
      transport = t;
      // closed while the module was loading: the channel it just made is closed at once
      if (closed) t.close();
      return t;
    }));
  async function* streamOf(start: (t: Transport) => AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
    yield* start(await real());
  }
  return {
    binding,
    protocolVersion,
    url,
    sendMessage: async (req, o) => (await real()).sendMessage(req, o),
    sendStreamingMessage: (req, o) => streamOf((t) => t.sendStreamingMessage(req, o)),
    getTask: async (req, o) => (await real()).getTask(req, o),
    listTasks: async (req, o) => (await real()).listTasks(req, o),
    cancelTask: async (req, o) => (await real()).cancelTask(req, o),
    subscribeToTask: (req, o) => streamOf((t) => t.subscribeToTask(req, o)),
    createTaskPushNotificationConfig: async (c, o) => (await real()).createTaskPushNotificationConfig(c, o),
    getTaskPushNotificationConfig: async (ref, o) => (await real()).getTaskPushNotificationConfig(ref, o),
    listTaskPushNotificationConfigs: async (req, o) => (await real()).listTaskPushNotificationConfigs(req, o),
    deleteTaskPushNotificationConfig: async (ref, o) => (await real()).deleteTaskPushNotificationConfig(ref, o),
    getExtendedAgentCard: async (o) => (await real()).getExtendedAgentCard(o),
    close: () => {
      closed = true;
      transport?.close();
    },
  };
}

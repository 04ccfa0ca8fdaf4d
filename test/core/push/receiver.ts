/** A real node:http webhook receiver on 127.0.0.1 for the push tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export type Responder = (req: ReceivedRequest, res: http.ServerResponse) => void;

export interface Receiver {
  url: (path?: string) => string;
  port: number;
  requests: ReceivedRequest[];
  respond: Responder;
  close: () => Promise<void>;
}

export async function startReceiver(respond: Responder = (_r, res) => res.writeHead(200).end()): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${receiver.port}${path}`,
    port: 0,
    requests,
    respond,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      requests.push(record);
      receiver.respond(record, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

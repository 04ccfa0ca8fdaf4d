/**
 * connectionGone (issue 19 C4) on a real node:http server over loopback, in the situation of a
 * replica that resumes after a stall: the client's request and its FIN are both already in the
 * kernel when the server first reads the socket. The server reads the request alone (the EOF comes
 * from a later read), and the check runs straight from the request handler, before that read.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionGone } from '../../src/bindings/connection-gone.js';

const REQUEST = 'POST /a2a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';

let closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers) c();
  closers = [];
});

/**
 * Sends REQUEST (and a FIN when `hangUp`) to a listener that accepts the connection but reads
 * nothing until both are sent; then hands the socket to an HTTP server whose request handler
 * answers what connectionGone says, asked at once.
 */
async function goneAsSeenByTheServer(hangUp: boolean): Promise<boolean> {
  const listener = net.createServer({ pauseOnConnect: true });
  closers.push(() => listener.close());
  const accepted = new Promise<net.Socket>((r) => listener.once('connection', r));
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));

  const client = net.connect((listener.address() as AddressInfo).port, '127.0.0.1');
  client.on('error', () => {});
  closers.push(() => client.destroy());
  // end()'s callback runs once the FIN is sent (the shutdown is done); write()'s once the bytes are.
  await new Promise<void>((resolve) => (hangUp ? client.end(REQUEST, resolve) : client.write(REQUEST, () => resolve())));

  const socket = await accepted;
  closers.push(() => socket.destroy());
  const verdict = new Promise<boolean>((resolve) => {
    const httpServer = http.createServer((req, res) => {
      void Promise.resolve(connectionGone(req)).then((gone) => {
        resolve(gone);
        res.end();
      });
    });
    closers.push(() => httpServer.close());
    httpServer.emit('connection', socket);
    socket.resume();
  });
  return verdict;
}

describe('connectionGone', () => {
  it('sees a client that sent its request and hung up before the server read either', async () => {
    expect(await goneAsSeenByTheServer(true)).toBe(true);
  });

  it('sees a client that is still connected as connected', async () => {
    expect(await goneAsSeenByTheServer(false)).toBe(false);
  });
});

describe('connectionGone, asked again while an earlier check waits', () => {
  const connected = { socket: { destroyed: false, readableEnded: false, writable: true } } as unknown as http.IncomingMessage;

  it('waits for a poll phase that starts after its own call, not for the earlier wait it may share', async () => {
    const order: string[] = [];
    const first = connectionGone(connected).then(() => order.push('first'));
    // This immediate runs after the first check's own first immediate: a check asked here must not
    // end with the earlier one, whose poll phase may have started before it was asked.
    const second = new Promise<void>((resolve) =>
      setImmediate(() => {
        const asked = connectionGone(connected).then(() => order.push('second'));
        setImmediate(() => order.push('next check phase'));
        void asked.then(() => resolve());
      }),
    );
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'next check phase', 'second']);
  });

  it('answers each of several checks asked at once', async () => {
    const gone = { socket: { destroyed: true, readableEnded: false, writable: true } } as unknown as http.IncomingMessage;
    expect(await Promise.all([connectionGone(connected), connectionGone(gone), connectionGone(connected)])).toEqual([false, true, false]);
  });
});

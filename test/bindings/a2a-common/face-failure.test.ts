/**
 * A failure of the A2A face after its binding answered (src/bindings/a2a-http/a2a-face.ts): the
 * face waits on the binding's answer itself and hands what fails to the edge (RequestContext.failed),
 * which logs it and answers Internal in the binding's shape, as it does for what a face throws.
 * Made to happen here by a reply JSON cannot write (a BigInt in an agent's direct message) whose
 * logging fails too: the binding's own error reply is then a rejection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestServer, userMessage, type TestServer } from '../../support/server.js';

describe("the A2A face's failures after the binding answered", () => {
  const lines: string[] = [];
  let failLogging = true;
  const log = {
    write(line: string): void {
      // the binding's log of its internal error fails (once): its reply's promise rejects
      if (failLogging && line.includes('internal error in JSON-RPC call')) {
        failLogging = false;
        throw new Error('log destination failed');
      }
      lines.push(line);
    },
  };
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] }, { services: { logDestination: log } });
    const echo = s.registry.get('echo')!;
    s.registry.add({
      ...echo,
      id: 'bigint',
      definition: {
        ...echo.definition,
        execute(ctx) {
          ctx.reply([{ data: { n: 1n } } as never]);
        },
      },
    });
  });
  afterAll(() => s.stop());

  it('are logged by the edge and answered as Internal in the JSON-RPC shape', async () => {
    const r = await rpc(`${s.http}/a2a/bigint`, 'SendMessage', { message: userMessage('hi') });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
    expect(r.headers.get('x-request-id')).toBeTruthy();
    const logged = lines.map((l) => JSON.parse(l) as { msg?: string; face?: string; reqId?: string });
    expect(logged.filter((l) => l.msg === 'unhandled error on the a2a face')).toEqual([expect.objectContaining({ face: 'a2a', reqId: r.headers.get('x-request-id') })]);
    // the server goes on answering
    const ok = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after') });
    expect(ok.status).toBe(200);
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

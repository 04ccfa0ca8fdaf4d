/**
 * The client's stream resume when events really happen during the outage. resilience.test.ts
 * drops the connection and lets the client reconnect at once, before anything can be missed;
 * here the proxy holds the client's reconnection while the test releases events 2–4 of the latch
 * agent and waits until they are committed, then lets it through. Lossless resume must deliver
 * each of the six events once, in order, as events (not folded into a snapshot).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, textMessage, type AgentCard, type Binding, type ClientEvent, type StreamEvent } from '../../src/client/index.js';
import { ROOT, waitFor } from '../support/cluster.js';
import { rpc, startTestServer, type TestServer } from '../support/server.js';
import { DropProxy } from './cut-proxy.js';
import { artifactTexts } from './support.js';

const LATCH_AGENT = path.join(ROOT, 'test/fixtures/agents/latch-agent.mjs');
const ALL = ['event 1', 'event 2', 'event 3', 'event 4', 'event 5', 'event 6'];

let s: TestServer;
let card: AgentCard;
let scratch: string;
beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'latch', module: LATCH_AGENT }] });
  card = (await A2AClient.connect(`${s.http}/a2a/latch`)).card;
  scratch = await mkdtemp(path.join(tmpdir(), 'agentport-client-resume-'));
});
afterAll(async () => {
  await s?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function cardVia(proxy: DropProxy, binding: Binding, version: string): AgentCard {
  const i = card.supportedInterfaces.find((x) => x.protocolBinding === binding && x.protocolVersion === version);
  if (!i) throw new Error(`the card has no ${binding} v${version} interface`);
  return { ...card, supportedInterfaces: [{ ...i, url: i.url.replace(/:\d+\//, `:${proxy.port}/`) }] };
}

describe.each([
  { binding: 'JSONRPC' as Binding, version: '1.0' },
  { binding: 'HTTP+JSON' as Binding, version: '1.0' },
  { binding: 'JSONRPC' as Binding, version: '0.3' },
])('the client on $binding v$version, cut off while the task goes on', ({ binding, version }) => {
  it('resumes with Last-Event-ID and gets every missed event once, in order', async () => {
    const latch = await mkdtemp(path.join(scratch, 'l-'));
    const release = (i: number) => writeFile(path.join(latch, `go-${i}`), '');
    const proxy = await DropProxy.start('127.0.0.1', Number(new URL(s.http).port));
    const resumes: ClientEvent[] = [];
    const c = A2AClient.fromCard(cardVia(proxy, binding, version), { resumeDelayMs: 20, onEvent: (e) => resumes.push(e) });
    try {
      const events: StreamEvent[] = [];
      let taskId: string | undefined;
      let released = 1;
      await release(1);
      for await (const ev of c.sendStreamingMessage({ message: textMessage(`latch ${latch} ${ALL.length} split`) })) {
        events.push(ev);
        if ('task' in ev.response) taskId ??= ev.response.task.id;
        const texts = artifactTexts(events);
        if (texts.length === 1 && resumes.length === 0) {
          // The outage: the stream is cut, the reconnection waits at the proxy, 2–4 happen.
          proxy.hold();
          proxy.drop();
          for (const i of [2, 3, 4]) await release(i);
          released = 4;
          await waitFor(async () => JSON.stringify((await rpc(`${s.http}/a2a/latch`, 'GetTask', { id: taskId })).body).includes('event 4'), {
            timeoutMs: 10_000,
            what: 'events 2-4 committed during the outage',
          });
          proxy.release();
        } else if (JSON.stringify(ev.response).includes(`"event ${released}"`) && released < ALL.length) {
          // (a snapshot that folds the latest event in releases the next one too, so that a lossy
          // resume fails on the events it lost rather than on a timeout)
          await release(++released);
        }
      }
      expect(resumes).toHaveLength(1);
      expect(proxy.connections).toBe(2);
      expect((resumes[0] as { lastEventId?: string }).lastEventId).toMatch(/^\d+$/);
      expect(artifactTexts(events)).toEqual(ALL);
      // Replayed as events: no snapshot after the first event folds the missed ones in.
      expect(events.slice(1).filter((e) => 'task' in e.response)).toEqual([]);
      const ids = events.map((e) => Number(e.id));
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    } finally {
      c.close();
      await proxy.close();
    }
  }, 30_000);
});

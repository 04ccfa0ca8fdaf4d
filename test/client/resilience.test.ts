/**
 * What makes the client survive real networks, on real sockets: a stream whose connection is
 * dropped mid-task resumes (lossless with Last-Event-ID on the HTTP bindings, from the snapshot on
 * gRPC), and a card whose first interface is dead falls back to the next one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, TransportError, textMessage, type AgentCard, type Binding, type ClientEvent, type StreamEvent } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { DropProxy } from './cut-proxy.js';
import { artifactTexts, collect, serverConfig, states } from './support.js';

let s: TestServer;
let card: AgentCard;
beforeAll(async () => {
  s = await startTestServer(serverConfig());
  card = (await A2AClient.connect(`${s.http}/a2a/probe`)).card;
});
afterAll(() => s?.stop());

const iface = (binding: Binding, version = '1.0') => card.supportedInterfaces.find((i) => i.protocolBinding === binding && i.protocolVersion === version)!;

/** The card with one interface moved behind the proxy. */
function cardVia(proxy: DropProxy, binding: Binding, version: string): AgentCard {
  const i = iface(binding, version);
  const url = binding === 'GRPC' ? `127.0.0.1:${proxy.port}` : i.url.replace(/:\d+\//, `:${proxy.port}/`);
  return { ...card, supportedInterfaces: [{ ...i, url }] };
}

describe.each([
  { binding: 'JSONRPC' as Binding, version: '1.0', lossless: true },
  { binding: 'HTTP+JSON' as Binding, version: '1.0', lossless: true },
  { binding: 'JSONRPC' as Binding, version: '0.3', lossless: true },
  { binding: 'GRPC' as Binding, version: '1.0', lossless: false },
])('a stream dropped mid-task on $binding v$version', ({ binding, version, lossless }) => {
  it(lossless ? 'resumes with Last-Event-ID and delivers every event exactly once' : 'resumes from the task snapshot and ends at the final state', async () => {
    const proxy = await DropProxy.start('127.0.0.1', Number(new URL(binding === 'GRPC' ? `http://${s.grpc}` : s.http).port));
    const resumes: ClientEvent[] = [];
    const c = A2AClient.fromCard(cardVia(proxy, binding, version), { resumeDelayMs: 50, onEvent: (e) => resumes.push(e) });
    try {
      const events: StreamEvent[] = [];
      for await (const ev of c.sendStreamingMessage({ message: textMessage('ticks 6 80') })) {
        events.push(ev);
        if (artifactTexts(events).length === 2 && resumes.length === 0) proxy.drop();
      }
      expect(resumes).toHaveLength(1);
      expect(resumes[0]).toMatchObject({ type: 'resume', attempt: 1 });
      expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
      if (lossless) {
        expect((resumes[0] as { lastEventId?: string }).lastEventId).toMatch(/^\d+$/);
        expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5']);
        // each seq once, increasing: nothing replayed twice, nothing skipped
        const ids = events.map((e) => Number(e.id));
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(new Set(ids).size).toBe(ids.length);
      } else {
        // no event ids on gRPC: the snapshot after the resume carries every artifact so far
        const snapshot = events.find((e, i) => i > 0 && 'task' in e.response);
        expect(snapshot).toBeDefined();
        const all = new Set([...artifactTexts(events), ...(events.flatMap((e) => ('task' in e.response ? (e.response.task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text)) : [])) as string[])]);
        expect([...all].sort()).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5']);
      }
    } finally {
      c.close();
      await proxy.close();
    }
  });
});

describe('subscribe with a known Last-Event-ID', () => {
  it('replays only the events after it', async () => {
    const c = A2AClient.fromCard({ ...card, supportedInterfaces: [iface('HTTP+JSON')] });
    const sent = await c.sendMessage({ message: textMessage('ticks 4 150'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const first: StreamEvent[] = [];
    for await (const ev of c.subscribeToTask(sent.task.id)) {
      first.push(ev);
      if (artifactTexts(first).length === 1) break;
    }
    await new Promise((r) => setTimeout(r, 400)); // let events happen while nobody listens
    const rest = await collect(c.subscribeToTask(sent.task.id, { lastEventId: first.at(-1)!.id! }));
    expect(artifactTexts(rest)).toEqual(['tick-1', 'tick-2', 'tick-3']);
    expect('task' in rest[0]!.response).toBe(false); // replay, not a fresh snapshot
  });
});

describe('interface fallback', () => {
  let dead: http.Server;
  let deadPort: number;
  beforeAll(async () => {
    // A port that accepted once and is now closed: connections are refused.
    dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    deadPort = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
  });

  it('moves to the next interface of the card when the first is unreachable, and stays there', async () => {
    const events: ClientEvent[] = [];
    const c = A2AClient.fromCard(
      { ...card, supportedInterfaces: [{ url: `http://127.0.0.1:${deadPort}/a2a/probe`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, iface('GRPC'), iface('HTTP+JSON')] },
      { onEvent: (e) => events.push(e) },
    );
    try {
      const r = await c.sendMessage({ message: textMessage('first') });
      expect('task' in r && r.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(c.currentInterface.protocolBinding).toBe('GRPC');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'fallback', from: { protocolBinding: 'JSONRPC' }, to: { protocolBinding: 'GRPC' } });
      await c.getTask({ id: 'task' in r ? r.task.id : '' });
      expect(events).toHaveLength(1);
    } finally {
      c.close();
    }
  });

  it('falls back before a stream starts, too', async () => {
    const c = A2AClient.fromCard({ ...card, supportedInterfaces: [{ url: `127.0.0.1:${deadPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }, iface('JSONRPC')] });
    try {
      const events = await collect(c.sendStreamingMessage({ message: textMessage('ticks 2 10') }));
      expect(artifactTexts(events)).toEqual(['tick-0', 'tick-1']);
      expect(c.currentInterface.protocolBinding).toBe('JSONRPC');
    } finally {
      c.close();
    }
  });

  it('throws a TransportError naming the last interface when none works', async () => {
    const c = A2AClient.fromCard({ ...card, supportedInterfaces: [{ url: `http://127.0.0.1:${deadPort}/a2a/probe`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] });
    const err = await c.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toMatch(/ECONNREFUSED/);
  });

  it('does not fall back on an A2A error: the agent answered', async () => {
    const events: ClientEvent[] = [];
    const c = A2AClient.fromCard({ ...card, supportedInterfaces: [iface('JSONRPC'), iface('HTTP+JSON')] }, { onEvent: (e) => events.push(e) });
    await expect(c.getTask({ id: 'missing' })).rejects.toMatchObject({ kind: 'TaskNotFound' });
    expect(events).toEqual([]);
    expect(c.currentInterface.protocolBinding).toBe('JSONRPC');
  });
});

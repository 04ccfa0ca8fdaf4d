/** Shared by the client suites: a server with the probe agent, auth off unless a test turns it on. */
import { fileURLToPath } from 'node:url';
import type { StreamEvent } from '../../src/client/index.js';

export const PROBE_MODULE = fileURLToPath(new URL('../fixtures/agents/probe-agent.ts', import.meta.url));

export const serverConfig = (extra: Record<string, unknown> = {}) => ({
  agents: [
    { id: 'echo', builtin: 'echo' },
    { id: 'probe', module: PROBE_MODULE },
  ],
  auth: { mode: 'none' },
  ...extra,
});

export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

/** The text of every artifact update, in order. */
export const artifactTexts = (events: StreamEvent[]): string[] => events.flatMap((e) => ('artifactUpdate' in e.response ? e.response.artifactUpdate.artifact.parts.map((p) => p.text ?? '') : []));

export const states = (events: StreamEvent[]): string[] => events.flatMap((e) => ('statusUpdate' in e.response ? [e.response.statusUpdate.status.state] : 'task' in e.response ? [e.response.task.status.state] : []));

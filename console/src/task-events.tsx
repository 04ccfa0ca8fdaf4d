/**
 * A task's event log (the events the store keeps, in order, with kind and time) and its push
 * deliveries, from `GET /api/v1/agents/{id}/tasks/{taskId}/events`. `version` changes whenever the
 * live task does, so a followed task's log is read again as events arrive.
 */
import type { Part } from './a2a-stream.js';
import { stateName } from './a2a-task.js';
import { getJson } from './api.js';
import { Status, Table, useLoad, when } from './ui.js';

interface LoggedEvent {
  seq: number;
  at: string;
  kind: string;
  event: {
    task?: { status?: { state?: string } };
    statusUpdate?: { status?: { state?: string; message?: { parts?: Part[] } } };
    artifactUpdate?: { artifact?: { name?: string; artifactId?: string; parts?: Part[] }; append?: boolean; lastChunk?: boolean };
    message?: { parts?: Part[] };
    userMessage?: { parts?: Part[] };
  };
}

interface EventLog {
  events: LoggedEvent[];
  truncated: boolean;
  push: {
    configs: Array<{ id: string; url: string; createdAt: string }>;
    pending: Array<{ configId: string; seq: number; attempts: number; queuedAt: string; nextAttemptAt: string; lastError?: string }>;
  };
}

const KIND_NAMES: Record<string, string> = { task: 'task created', statusUpdate: 'status', artifactUpdate: 'artifact', message: 'agent message', userMessage: 'user message' };

const firstText = (parts: Part[] | undefined) => {
  const text = (parts ?? []).find((p) => p.text !== undefined)?.text ?? '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

function detail(e: LoggedEvent['event']): string {
  if (e.task) return stateName(e.task.status?.state);
  if (e.statusUpdate) return [stateName(e.statusUpdate.status?.state), firstText(e.statusUpdate.status?.message?.parts)].filter(Boolean).join(': ');
  if (e.artifactUpdate) {
    const a = e.artifactUpdate.artifact;
    return `${a?.name ?? a?.artifactId ?? ''} (${a?.parts?.length ?? 0} parts${e.artifactUpdate.append ? ', appended' : ''})`;
  }
  return firstText((e.message ?? e.userMessage)?.parts);
}

export function TaskEvents({ agentId, taskId, version }: { agentId: string; taskId: string; version: string }) {
  const log = useLoad(() => getJson<EventLog>(`api/v1/agents/${encodeURIComponent(agentId)}/tasks/${encodeURIComponent(taskId)}/events`), [agentId, taskId, version]);
  return (
    <>
      <h2>Event log</h2>
      <Status loaded={log}>
        {(l) => (
          <>
            <Table
              caption={`${l.events.length} stored events, oldest first${l.truncated ? ' (the first 1000)' : ''}`}
              rows={l.events}
              empty="No events."
              columns={[
                { title: '#', numeric: true, cell: (e) => e.seq },
                { title: 'Time (UTC)', cell: (e) => when(e.at) },
                { title: 'Kind', cell: (e) => KIND_NAMES[e.kind] ?? e.kind },
                { title: 'Detail', cell: (e) => detail(e.event) },
              ]}
            />
            <h2>Push deliveries</h2>
            {l.push.configs.length === 0 ? (
              <p class="muted">No push notification configs: nothing is delivered for this task.</p>
            ) : (
              <>
                <Table
                  caption="Push notification configs (URLs without their query)"
                  rows={l.push.configs}
                  empty="None."
                  columns={[
                    { title: 'Config', cell: (c) => <code>{c.id}</code> },
                    { title: 'URL', cell: (c) => <code>{c.url}</code> },
                    { title: 'Created (UTC)', cell: (c) => when(c.createdAt) },
                  ]}
                />
                <Table
                  caption="Deliveries still owed (delivered ones leave the queue)"
                  rows={l.push.pending}
                  empty="None owed: every event was delivered (or given up)."
                  columns={[
                    { title: 'Config', cell: (p) => <code>{p.configId}</code> },
                    { title: 'Event #', numeric: true, cell: (p) => p.seq },
                    { title: 'Attempts', numeric: true, cell: (p) => p.attempts },
                    { title: 'Next attempt (UTC)', cell: (p) => when(p.nextAttemptAt) },
                    { title: 'Last error', cell: (p) => p.lastError ?? '' },
                  ]}
                />
              </>
            )}
          </>
        )}
      </Status>
    </>
  );
}

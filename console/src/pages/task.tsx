/**
 * One task: its status, messages, artifacts, event log and push deliveries, and Cancel while it runs. The owner's view reads the
 * task with A2A GetTask and follows it live with SubscribeToTask (one event stream, no polling);
 * an administrator looking at another owner's task reads it through the management API (A2A is
 * owner-scoped, so following and cancelling are the owner's).
 */
import { useEffect, useState } from 'preact/hooks';
import { cancelTask, rpcCall, subscribeToTask } from '../a2a-stream.js';
import { applyEvent, stateName, TERMINAL, type A2ATask } from '../a2a-task.js';
import { ApiError, getJson } from '../api.js';
import { RunTimeline } from '../llm-run.js';
import { Parts } from '../parts.js';
import { TaskEvents } from '../task-events.js';
import { Problem, when } from '../ui.js';

interface Shown {
  task: A2ATask;
  /** the owner's own task: followed live, and cancellable */
  own: boolean;
  owner?: string;
}

async function readTask(agentId: string, taskId: string, admin: boolean): Promise<Shown> {
  try {
    return { task: await rpcCall<A2ATask>(agentId, 'GetTask', { id: taskId }), own: true };
  } catch (e) {
    if (!admin || e instanceof ApiError) throw e;
    const stored = await getJson<{ owner: string; task: A2ATask }>(`api/v1/agents/${encodeURIComponent(agentId)}/tasks/${encodeURIComponent(taskId)}`);
    return { task: stored.task, own: false, owner: stored.owner };
  }
}

const speaker = (role: string | undefined) => (role === 'ROLE_USER' ? 'User' : role === 'ROLE_AGENT' ? 'Agent' : (role ?? ''));

export function TaskPage({ agentId, taskId, admin }: { agentId: string; taskId: string; admin: boolean }) {
  const [shown, setShown] = useState<Shown>();
  const [problem, setProblem] = useState<string>();
  const [live, setLive] = useState(false);
  const report = (e: unknown) => setProblem(e instanceof Error ? e.message : String(e));

  useEffect(() => {
    const stop = new AbortController();
    readTask(agentId, taskId, admin).then((s) => {
      if (stop.signal.aborted) return;
      setShown(s);
      if (!s.own || TERMINAL.has(s.task.status?.state ?? '')) return;
      setLive(true);
      subscribeToTask(agentId, taskId, (e) => setShown((cur) => (cur ? { ...cur, task: applyEvent(cur.task, e) } : cur)), stop.signal)
        .catch((e: unknown) => stop.signal.aborted || report(e))
        .finally(() => stop.signal.aborted || setLive(false));
    }, report);
    return () => stop.abort();
  }, [agentId, taskId, admin]);

  const task = shown?.task;
  const state = task?.status?.state;
  const running = state !== undefined && !TERMINAL.has(state);
  return (
    <>
      <h1>Task</h1>
      <p>
        <a href="#/tasks">All tasks</a>
      </p>
      <Problem text={problem} />
      {!task ? (
        !problem && <p class="muted">Loading…</p>
      ) : (
        <>
          <dl class="facts">
            <dt>Task</dt>
            <dd>
              <code>{task.id}</code>
            </dd>
            <dt>Agent</dt>
            <dd>{agentId}</dd>
            {shown.owner && (
              <>
                <dt>Owner</dt>
                <dd>{shown.owner}</dd>
              </>
            )}
            <dt>Context</dt>
            <dd>
              <code>{task.contextId ?? ''}</code>
            </dd>
            <dt>State</dt>
            <dd id="task-page-state" aria-live="polite">
              {stateName(state)}
              {live ? ' (following live)' : ''}
            </dd>
            <dt>Updated (UTC)</dt>
            <dd>{task.status?.timestamp ? when(task.status.timestamp) : ''}</dd>
          </dl>
          {task.status?.message && <Parts parts={task.status.message.parts} label="Status message" />}
          {running &&
            (shown.own ? (
              <button type="button" onClick={() => cancelTask(agentId, task.id).catch(report)}>
                Cancel task
              </button>
            ) : (
              <p class="muted">Only the task's owner can follow or cancel it over A2A.</p>
            ))}
          <RunTimeline task={task} />
          <h2>Messages</h2>
          {(task.history ?? []).length === 0 ? (
            <p class="muted">No messages.</p>
          ) : (
            <ol class="transcript">
              {(task.history ?? []).map((m, i) => (
                <li key={m.messageId ?? i} class={m.role === 'ROLE_USER' ? 'user' : 'agent'}>
                  <span class="speaker">{speaker(m.role)}</span>
                  <Parts parts={m.parts} label={`Message ${i + 1}`} />
                </li>
              ))}
            </ol>
          )}
          <h2>Artifacts</h2>
          {(task.artifacts ?? []).length === 0 ? (
            <p class="muted">No artifacts.</p>
          ) : (
            (task.artifacts ?? []).map((a, i) => (
              <section key={a.artifactId ?? i} class="artifact" aria-label={`Artifact ${a.name ?? i + 1}`}>
                <h3>{a.name ?? a.artifactId ?? `Artifact ${i + 1}`}</h3>
                {a.description && <p class="muted">{a.description}</p>}
                <Parts parts={a.parts} label={a.name ?? `Artifact ${i + 1}`} />
              </section>
            ))
          )}
          <TaskEvents agentId={agentId} taskId={task.id} version={`${state ?? ''}|${task.status?.timestamp ?? ''}|${(task.artifacts ?? []).length}`} />
        </>
      )}
    </>
  );
}

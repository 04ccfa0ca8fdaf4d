/**
 * Chatting with an agent over A2A (streaming), in a conversation with its own URL
 * (`#/agents/{agent}/{contextId}`) that opens again from the stored tasks. The state shown is
 * always the task's: from its events, and read back (`GetTask`) when a stream ends or breaks and
 * after Cancel. A send the server refuses (413, 429, …) keeps what was typed.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { cancelTask, rpcCall, sendStreaming, type Part, type StreamEvent } from '../a2a-stream.js';
import { stateName } from '../a2a-task.js';
import { Parts } from '../parts.js';
import { Problem, Status, useLoad, when } from '../ui.js';
import { conversationHref, loadConversation, recentConversations, withArtifactChunk, type Turn } from './conversation.js';

export interface PlaygroundAgent {
  id: string;
  name: string;
}

/** The message's parts: the text, the data (JSON, checked here), the file (inline, base64). */
async function composeParts(text: string, data: string, file: File | undefined): Promise<Part[]> {
  const parts: Part[] = [];
  if (text.trim()) parts.push({ text });
  if (data.trim()) {
    try {
      parts.push({ data: JSON.parse(data) as unknown });
    } catch {
      throw new Error('The data part is not JSON.');
    }
  }
  if (file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    parts.push({ raw: btoa(binary), filename: file.name, ...(file.type ? { mediaType: file.type } : {}) });
  }
  return parts;
}

/** States in which the task waits for the caller: the next message continues that task. */
const WAITING = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function RecentConversations({ agent, current, round }: { agent: PlaygroundAgent; current: string | undefined; round: number }) {
  const recent = useLoad(() => recentConversations(agent.id), [agent.id, round]);
  return (
    <nav class="recent" aria-label="Recent conversations">
      <h3>Recent conversations</h3>
      <a href={conversationHref(agent.id)} aria-current={current === undefined ? 'page' : undefined} class={current === undefined ? 'current-conversation' : undefined}>
        New conversation
      </a>
      <Status loaded={recent}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <ol>
              {list.map((c) => (
                <li key={c.contextId}>
                  <a href={conversationHref(agent.id, c.contextId)} aria-current={c.contextId === current ? 'page' : undefined} class={c.contextId === current ? 'current-conversation' : undefined}>
                    {c.preview}
                  </a>
                  <span class="muted">
                    {' '}
                    {stateName(c.state)}
                    {c.updated ? `, ${when(c.updated)}` : ''}
                  </span>
                </li>
              ))}
            </ol>
          )
        }
      </Status>
    </nav>
  );
}

export function A2APlayground({ agent, contextId }: { agent: PlaygroundAgent; contextId: string | undefined }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [events, setEvents] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const file = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const [state, setState] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [running, setRunning] = useState(false);
  const [round, setRound] = useState(0);
  const context = useRef<{ contextId?: string; taskId?: string }>({});
  const abort = useRef<AbortController | undefined>(undefined);

  // The URL names the conversation: a new one starts empty, another is read back from its tasks.
  // The conversation this page itself started (its URL set below) is already on screen.
  useEffect(() => {
    if (contextId === context.current.contextId) return;
    abort.current?.abort();
    setTurns([]);
    setEvents([]);
    setState(undefined);
    setProblem(undefined);
    context.current = contextId ? { contextId } : {};
    if (!contextId) return;
    let current = true;
    loadConversation(agent.id, contextId).then(
      (restored) => {
        if (!current) return;
        setTurns(restored.turns);
        setState(restored.latest?.state);
        if (restored.latest) context.current = { contextId, taskId: restored.latest.id };
      },
      (e: unknown) => current && setProblem(message(e)),
    );
    return () => {
      current = false;
    };
  }, [agent.id, contextId]);

  /** The task's state as stored: after a stream ends or breaks, and whatever the events said. */
  const readState = async (taskId: string) => {
    try {
      const task = await rpcCall<{ status?: { state?: string } }>(agent.id, 'GetTask', { id: taskId, historyLength: 0 });
      setState(task.status?.state);
    } catch (e) {
      setProblem(message(e));
    }
  };

  const send = async (ev: Event) => {
    ev.preventDefault();
    if (running) return;
    setProblem(undefined);
    let parts: Part[];
    try {
      parts = await composeParts(text, data, file.current?.files?.[0]);
    } catch (e) {
      setProblem(message(e));
      return;
    }
    if (parts.length === 0) return;
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    // A task waiting for input continues; a finished one leaves only its context to the next turn.
    const { contextId: sentContext, taskId: waitingTask } = context.current;
    const continues = state !== undefined && WAITING.has(state) && waitingTask;
    let accepted = false;
    let taskId: string | undefined;
    const onEvent = (e: StreamEvent, raw: string) => {
      if (!accepted) {
        // The server took the message: only now is the composer cleared (a refusal keeps it).
        accepted = true;
        setTurns((list) => [...list, { role: 'user', parts }]);
        setText('');
        setData('');
        if (file.current) file.current.value = '';
      }
      setEvents((list) => [...list, raw]);
      const ids = e.task
        ? { contextId: e.task.contextId, taskId: e.task.id }
        : e.statusUpdate
          ? { contextId: e.statusUpdate.contextId, taskId: e.statusUpdate.taskId }
          : e.artifactUpdate
            ? { contextId: e.artifactUpdate.contextId, taskId: e.artifactUpdate.taskId }
            : { contextId: e.message?.contextId, taskId: e.message?.taskId };
      taskId = ids.taskId ?? taskId;
      const newContext = ids.contextId ?? context.current.contextId;
      context.current = { ...(newContext ? { contextId: newContext } : {}), ...(taskId ? { taskId } : {}) };
      if (e.task) setState(e.task.status?.state);
      if (e.statusUpdate) setState(e.statusUpdate.status?.state);
      // A direct message answers without a task: no task state to show.
      if (e.message && !e.message.taskId) setState(undefined);
      const chunk = e.artifactUpdate;
      if (chunk?.artifact?.parts?.length) {
        const key = chunk.artifact.artifactId !== undefined ? `${taskId ?? ''}/${chunk.artifact.artifactId}` : undefined;
        const chunkParts = chunk.artifact.parts;
        setTurns((list) => withArtifactChunk(list, key, chunkParts, chunk.append === true));
      } else {
        const reply = e.message?.parts ?? e.statusUpdate?.status?.message?.parts ?? [];
        if (reply.length > 0) setTurns((list) => [...list, { role: 'agent', parts: reply }]);
      }
      // The conversation gets its URL as soon as the agent names it (history entry: Back works).
      if (newContext && newContext !== contextId) location.hash = conversationHref(agent.id, newContext);
    };
    try {
      await sendStreaming(agent.id, { parts, ...(sentContext ? { contextId: sentContext } : {}), ...(continues ? { taskId: waitingTask } : {}) }, onEvent, controller.signal);
    } catch (e) {
      if (!controller.signal.aborted) setProblem(message(e));
    } finally {
      setRunning(false);
      if (taskId && !controller.signal.aborted) await readState(taskId);
      setRound((r) => r + 1);
    }
  };

  const cancel = async () => {
    abort.current?.abort();
    const taskId = context.current.taskId;
    if (!taskId) return;
    try {
      const task = await cancelTask(agent.id, taskId);
      setState(task.status?.state);
    } catch (e) {
      // Not cancelable (it ended meanwhile): say why, and show the state it ended in.
      setProblem(message(e));
      await readState(taskId);
    }
    setRound((r) => r + 1);
  };

  // Enter sends, Shift+Enter starts a new line (and an input method composing text keeps Enter).
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
    e.preventDefault();
    form.current?.requestSubmit();
  };

  return (
    <section class="playground" aria-labelledby="playground-title">
      <h2 id="playground-title">Playground: {agent.name}</h2>
      <div class="playground-layout">
        <RecentConversations agent={agent} current={contextId} round={round} />
        <div class="conversation">
          <ol class="transcript" aria-live="polite">
            {turns.map((t, i) => (
              <li key={`${i}-${t.role}`} class={t.role}>
                <span class="speaker">{t.role === 'user' ? 'You' : agent.name}</span>
                <Parts parts={t.parts} label={`Turn ${i + 1}`} />
              </li>
            ))}
          </ol>
          {state && (
            <p class="muted" id="task-state">
              Task state: {stateName(state)}
            </p>
          )}
          <Problem text={problem} />
          <form ref={form} onSubmit={send} class="composer">
            <label for="playground-text">Message</label>
            <textarea id="playground-text" rows={3} value={text} aria-describedby="playground-keys" onKeyDown={onKeyDown} onInput={(e) => setText(e.currentTarget.value)} />
            <p id="playground-keys" class="muted hint">
              Enter sends; Shift+Enter starts a new line.
            </p>
            <details>
              <summary>Data and file parts</summary>
              <label for="playground-data">Data part (JSON)</label>
              <textarea id="playground-data" rows={3} value={data} onInput={(e) => setData(e.currentTarget.value)} />
              <label for="playground-file">File part</label>
              <input id="playground-file" type="file" ref={file} />
            </details>
            <div>
              <button type="submit" class="primary" disabled={running}>
                Send
              </button>
              <button type="button" onClick={cancel} disabled={!running && !(state !== undefined && WAITING.has(state))}>
                Cancel
              </button>
            </div>
          </form>
          <details>
            <summary>Raw events ({events.length})</summary>
            <pre class="raw" id="raw-events">
              {events.join('\n')}
            </pre>
          </details>
        </div>
      </div>
    </section>
  );
}

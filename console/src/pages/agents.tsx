/** Agents: every agent the user may see, with its card, and a playground to chat with it over A2A (streaming). */
import { useRef, useState } from 'preact/hooks';
import { cancelTask, sendStreaming, type Part, type StreamEvent } from '../a2a-stream.js';
import { getJson } from '../api.js';
import { listTools } from '../mcp-client.js';
import { McpPlayground } from '../mcp-playground.js';
import { Parts } from '../parts.js';
import { Problem, Status, useLoad } from '../ui.js';

interface AgentEntry {
  id: string;
  name: string;
  description: string;
  url: string;
}

interface Card {
  name: string;
  description: string;
  version?: string;
  supportedInterfaces?: Array<{ url: string; protocolBinding?: string; protocolVersion?: string }>;
  capabilities?: { streaming?: boolean; pushNotifications?: boolean };
  skills?: Array<{ id: string; name: string; description?: string; tags?: string[] }>;
  securitySchemes?: Record<string, unknown>;
  signatures?: unknown[];
}

function AgentCard({ agent, onChat, chatting }: { agent: AgentEntry; onChat: () => void; chatting: boolean }) {
  const card = useLoad(() => getJson<Card>(`api/v1/agents/${encodeURIComponent(agent.id)}/card`), [agent.id]);
  // Tool names from the agent's own MCP endpoint; without MCP access the card just says so.
  const tools = useLoad(() => listTools(agent.id).then((t) => t.map((x) => x.name)), [agent.id]);
  const headingId = `agent-${agent.id}`;
  return (
    <article class="card" aria-labelledby={headingId}>
      <h2 id={headingId} class="card-title">
        {agent.name} <code>{agent.id}</code>
      </h2>
      <p>{agent.description}</p>
      <Status loaded={card}>
        {(c) => (
          <dl class="facts">
            <dt>Interfaces</dt>
            <dd>{(c.supportedInterfaces ?? []).map((i) => `${i.protocolBinding ?? '?'} ${i.protocolVersion ?? ''}`.trim()).join(', ') || agent.url}</dd>
            <dt>Skills</dt>
            <dd>{(c.skills ?? []).map((s) => s.name).join(', ') || 'none'}</dd>
            <dt>Security</dt>
            <dd>{Object.keys(c.securitySchemes ?? {}).join(', ') || 'none'}</dd>
            <dt>Signed</dt>
            <dd>{c.signatures?.length ? `yes (${c.signatures.length})` : 'no'}</dd>
            <dt>MCP tools</dt>
            <dd class="mcp-tools">{tools.data ? tools.data.join(', ') || 'none' : tools.error ? 'not available to you' : '…'}</dd>
          </dl>
        )}
      </Status>
      <button type="button" onClick={onChat} aria-pressed={chatting}>
        Chat with {agent.name}
      </button>
    </article>
  );
}

interface Turn {
  role: 'user' | 'agent';
  parts: Part[];
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

function Playground({ agent }: { agent: AgentEntry }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [events, setEvents] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const file = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [running, setRunning] = useState(false);
  const context = useRef<{ contextId?: string; taskId?: string }>({});
  const abort = useRef<AbortController | undefined>(undefined);

  const onEvent = (e: StreamEvent, raw: string) => {
    setEvents((list) => [...list, raw]);
    const task = e.task;
    if (task) {
      context.current = { contextId: task.contextId, taskId: task.id };
      setState(task.status?.state);
    }
    const reply = e.artifactUpdate?.artifact?.parts ?? e.message?.parts ?? e.statusUpdate?.status?.message?.parts ?? [];
    if (e.statusUpdate) {
      context.current = { contextId: e.statusUpdate.contextId, taskId: e.statusUpdate.taskId };
      setState(e.statusUpdate.status?.state);
    }
    if (reply.length > 0) setTurns((list) => [...list, { role: 'agent', parts: reply }]);
  };

  const send = async (ev: Event) => {
    ev.preventDefault();
    setProblem(undefined);
    let parts: Part[];
    try {
      parts = await composeParts(text, data, file.current?.files?.[0]);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
      return;
    }
    if (parts.length === 0) return;
    setTurns((list) => [...list, { role: 'user', parts }]);
    setText('');
    setData('');
    if (file.current) file.current.value = '';
    abort.current = new AbortController();
    setRunning(true);
    // A task waiting for input continues; a finished one leaves only its context to the next turn.
    const waiting = state === 'TASK_STATE_INPUT_REQUIRED';
    const { contextId, taskId } = context.current;
    try {
      await sendStreaming(agent.id, { parts, ...(contextId ? { contextId } : {}), ...(waiting && taskId ? { taskId } : {}) }, onEvent, abort.current.signal);
    } catch (e) {
      if (!abort.current.signal.aborted) setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setRunning(false);
    }
  };

  const cancel = async () => {
    abort.current?.abort();
    const taskId = context.current.taskId;
    if (taskId) await cancelTask(agent.id, taskId).catch((e: unknown) => setProblem(e instanceof Error ? e.message : String(e)));
  };

  return (
    <section class="playground" aria-labelledby="playground-title">
      <h2 id="playground-title">Playground: {agent.name}</h2>
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
          Task state: {state.replace('TASK_STATE_', '').toLowerCase().replace('_', '-')}
        </p>
      )}
      <Problem text={problem} />
      <form onSubmit={send} class="composer">
        <label for="playground-text">Message</label>
        <textarea id="playground-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
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
          <button type="button" onClick={cancel} disabled={!running}>
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
    </section>
  );
}

export function AgentsPage() {
  const agents = useLoad(() => getJson<{ agents: AgentEntry[] }>('api/v1/agents'), []);
  const [chat, setChat] = useState<string>();
  return (
    <>
      <h1>Agents</h1>
      <Status loaded={agents}>
        {(a) => {
          const chosen = a.agents.find((x) => x.id === chat);
          return (
            <>
              <div class="cards">
                {a.agents.map((agent) => (
                  <AgentCard key={agent.id} agent={agent} chatting={chat === agent.id} onChat={() => setChat(agent.id)} />
                ))}
              </div>
              {chosen && <Playground key={chosen.id} agent={chosen} />}
              {chosen && <McpPlayground key={`mcp-${chosen.id}`} agentId={chosen.id} />}
            </>
          );
        }}
      </Status>
    </>
  );
}

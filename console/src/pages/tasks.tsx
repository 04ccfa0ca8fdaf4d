/**
 * Tasks: the tasks of every agent, newest status first, filtered by agent, state, owner (admins; a
 * member sees only their own) and time, a page at a time (`GET /api/v1/tasks`); followed, the first
 * page is read again every few seconds.
 */
import { taskHref } from '../task-href.js';
import { useEffect, useState } from 'preact/hooks';
import { stateName } from '../a2a-task.js';
import { getJson } from '../api.js';
import { Status, Table, useLoad, when } from '../ui.js';

interface TaskSummary {
  agentId: string;
  owner: string;
  id: string;
  createdAt: string;
  status: { state: string; timestamp?: string };
  /** the first user message, in one short line */
  preview?: string;
}

interface TaskPage {
  tasks: TaskSummary[];
  totalSize: number;
  nextPageToken?: string;
}

const STATES = ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'].map((s) => `TASK_STATE_${s}`);
/** How often a followed list is read again. */
const FOLLOW_MS = 3000;

const PERIODS: Array<[string, number]> = [
  ['any time', 0],
  ['last hour', 3_600_000],
  ['last day', 86_400_000],
  ['last 7 days', 7 * 86_400_000],
];

export function TasksPage({ admin }: { admin: boolean }) {
  const [agent, setAgent] = useState('');
  const [state, setState] = useState('');
  const [owner, setOwner] = useState('');
  const [period, setPeriod] = useState(0);
  // The page tokens read so far: the last one is the page shown.
  const [tokens, setTokens] = useState<string[]>([]);
  const filters = { agent, state, owner: admin ? owner : '' };
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== '')).toString();
  const token = tokens[tokens.length - 1];
  const tasks = useLoad(() => {
    const q = new URLSearchParams(query);
    if (period) q.set('since', String(Date.now() - period));
    if (token) q.set('pageToken', token);
    return getJson<TaskPage>(`api/v1/tasks?${q}`);
  }, [query, period, token]);
  // Following: the first page is read again every few seconds (a later page stays as read, so
  // paging through it is not disturbed).
  const [follow, setFollow] = useState(false);
  const { reload } = tasks;
  useEffect(() => {
    if (!follow || token) return;
    const timer = setInterval(reload, FOLLOW_MS);
    return () => clearInterval(timer);
  }, [follow, token, reload]);
  const refilter = (set: (v: string) => void) => (e: Event) => {
    set((e.currentTarget as HTMLInputElement).value.trim());
    setTokens([]);
  };
  return (
    <>
      <h1>Tasks</h1>
      {!admin && <p class="muted">Your own tasks.</p>}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          agent
          <input name="task-agent" value={agent} onInput={refilter(setAgent)} />
        </label>
        <label>
          state
          <select name="task-state" value={state} onChange={refilter(setState)}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {stateName(s)}
              </option>
            ))}
          </select>
        </label>
        {admin && (
          <label>
            owner
            <input name="task-owner" value={owner} onInput={refilter(setOwner)} />
          </label>
        )}
        <label>
          updated
          <select
            name="task-period"
            value={String(period)}
            onChange={(e) => {
              setPeriod(Number(e.currentTarget.value));
              setTokens([]);
            }}
          >
            {PERIODS.map(([label, span]) => (
              <option key={label} value={String(span)}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={tasks.reload}>
          Refresh
        </button>
        <label class="check">
          <input type="checkbox" name="task-follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> Follow (every {FOLLOW_MS / 1000} s)
        </label>
      </form>
      <Status loaded={tasks}>
        {(p) => (
          <>
            <Table
              caption={`Tasks, newest first (${p.totalSize.toLocaleString('en')} matching)`}
              empty="No tasks match."
              rows={p.tasks}
              columns={[
                { title: 'Task', cell: (t) => <a href={taskHref(t.agentId, t.id)}>{t.id}</a> },
                { title: 'First message', cell: (t) => <span class="preview">{t.preview ?? ''}</span> },
                { title: 'Agent', cell: (t) => t.agentId },
                { title: 'State', cell: (t) => stateName(t.status.state) },
                { title: 'Owner', cell: (t) => t.owner },
                { title: 'Updated (UTC)', cell: (t) => (t.status.timestamp ? when(t.status.timestamp) : '') },
              ]}
            />
            <div class="pager">
              <button type="button" disabled={tokens.length === 0} onClick={() => setTokens(tokens.slice(0, -1))}>
                Previous page
              </button>
              <button type="button" disabled={!p.nextPageToken} onClick={() => p.nextPageToken && setTokens([...tokens, p.nextPageToken])}>
                Next page
              </button>
            </div>
          </>
        )}
      </Status>
    </>
  );
}

/**
 * `agentport tasks get|list|cancel|subscribe <url> …`: a task after the fact. subscribe follows a
 * running task live (and, with --last-event-id, replays what was missed first).
 */
import type { Command } from 'commander';
import { A2AClient, type TaskState } from '../../client/index.js';
import { TASK_STATES } from '../../protocol/a2a/types.js';
import { clientOptions, CONNECTION_HELP, checkUrl, UsageError, withConnectionOptions, type ConnectionFlags } from '../a2a/connection.js';
import { EXIT } from '../a2a/exit-codes.js';
import { clientEventRelay, followStream, viewMode } from '../a2a/follow.js';
import { LiveView } from '../a2a/live-view.js';
import { stateName, taskSummary, taskTable } from '../a2a/render.js';
import { partsRendererFor } from '../a2a/terminal-parts.js';
import type { CliIO } from '../io.js';
import { failed } from './send.js';

const TASKS_HELP = `
Examples:
  $ agentport tasks list http://127.0.0.1:8080/a2a/echo --state working
  $ agentport tasks get http://127.0.0.1:8080/a2a/echo 0192f1c3-… --json
  $ agentport tasks subscribe http://127.0.0.1:8080/a2a/echo 0192f1c3-…
  $ agentport tasks subscribe $AGENT 0192f1c3-… --last-event-id 7   replay what came after event 7
  $ agentport tasks cancel http://127.0.0.1:8080/a2a/echo 0192f1c3-…

Exit codes: 0 success, 4 unreachable, 5 agent error (e.g. TaskNotFound), 6 not authenticated;
subscribe ends like send: 0 completed, 1 failed/rejected, 3 input required, 7 canceled (docs/cli.md).
${CONNECTION_HELP}
`;

interface GetFlags extends ConnectionFlags {
  history?: string;
  raw?: boolean;
}
interface ListFlags extends ConnectionFlags {
  context?: string;
  state?: string;
  pageSize?: string;
  pageToken?: string;
}
interface SubscribeFlags extends ConnectionFlags {
  lastEventId?: string;
  raw?: boolean;
}

function intFlag(name: string, v: string | undefined, min: number, max?: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
    throw new UsageError(`${name} must be an integer ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, not ${JSON.stringify(v)}`);
  }
  return n;
}

/** ListTasksRequest.pageSize is 1-100 (A2A v1.0); checked here, before any request is sent. */
const MAX_PAGE_SIZE = 100;

/** `working`, `input-required`, `TASK_STATE_WORKING`… → the enum name. */
function stateFlag(v: string | undefined): TaskState | undefined {
  if (v === undefined) return undefined;
  const name = v.startsWith('TASK_STATE_') ? v : `TASK_STATE_${v.toUpperCase().replace(/-/g, '_')}`;
  if (!(TASK_STATES as readonly string[]).includes(name)) throw new UsageError(`--state must be one of ${TASK_STATES.map(stateName).join(', ')}`);
  return name as TaskState;
}

/** Flags are checked (`check`, usage errors: exit 2) before the agent is contacted. */
async function withClient<T>(io: CliIO, command: string, url: string, f: ConnectionFlags, check: () => T, work: (c: A2AClient, checked: T) => Promise<number>): Promise<void> {
  let client: A2AClient | undefined;
  let code: number;
  try {
    checkUrl(url);
    const checked = check();
    client = await A2AClient.connect(url, clientOptions(f, io));
    code = await work(client, checked);
  } catch (err) {
    code = failed(io, err, `tasks ${command}`);
  } finally {
    client?.close();
  }
  if (code !== 0) io.exit(code);
}

export function registerTasks(program: Command, io: CliIO): void {
  const tasks = program.command('tasks').description("an agent's tasks: get, list, cancel, subscribe").addHelpText('after', TASKS_HELP);
  const cmd = (name: string, description: string) => withConnectionOptions(tasks.command(name).description(description).argument('<url>', "the agent's URL or its card URL")).addHelpText('after', TASKS_HELP);

  cmd('get', 'show a task: state, status message, artifacts')
    .argument('<taskId>', 'the task id')
    .option('--history <n>', 'include at most n messages of history')
    .option('--raw', 'print the parts as sent (no markdown rendering, tables or chart summaries)')
    .action(async (url: string, taskId: string, f: GetFlags) =>
      withClient(
        io,
        'get',
        url,
        f,
        () => intFlag('--history', f.history, 0),
        async (c, historyLength) => {
          const task = await c.getTask({ id: taskId, ...(historyLength === undefined ? {} : { historyLength }) });
          io.stdout(f.json ? `${JSON.stringify(task)}\n` : taskSummary(task, partsRendererFor(io, f.raw)));
          return EXIT.ok;
        },
      ),
    );

  cmd('list', 'list your tasks, newest first')
    .option('--context <contextId>', 'only tasks of this conversation')
    .option('--state <state>', 'only tasks in this state (working, completed, input-required, …)')
    .option('--page-size <n>', 'tasks per page (1-100)')
    .option('--page-token <token>', 'the next page, as printed by a previous list')
    .action(async (url: string, f: ListFlags) =>
      withClient(
        io,
        'list',
        url,
        f,
        () => ({ status: stateFlag(f.state), pageSize: intFlag('--page-size', f.pageSize, 1, MAX_PAGE_SIZE) }),
        async (c, { status, pageSize }) => {
          const r = await c.listTasks({ ...(f.context ? { contextId: f.context } : {}), ...(status ? { status } : {}), ...(pageSize ? { pageSize } : {}), ...(f.pageToken ? { pageToken: f.pageToken } : {}) });
          if (f.json) io.stdout(`${JSON.stringify(r)}\n`);
          else {
            io.stdout(r.tasks.length ? taskTable(r.tasks) : 'no tasks\n');
            if (r.nextPageToken) io.stdout(`more: --page-token ${r.nextPageToken}\n`);
          }
          return EXIT.ok;
        },
      ),
    );

  cmd('cancel', 'cancel a task')
    .argument('<taskId>', 'the task id')
    .action(async (url: string, taskId: string, f: ConnectionFlags) =>
      withClient(
        io,
        'cancel',
        url,
        f,
        () => undefined,
        async (c) => {
          const task = await c.cancelTask({ id: taskId });
          io.stdout(f.json ? `${JSON.stringify(task)}\n` : `${stateName(task.status.state)}  ${task.id}\n`);
          return EXIT.ok;
        },
      ),
    );

  cmd('subscribe', 'follow a running task live until it ends')
    .argument('<taskId>', 'the task id')
    .option('--last-event-id <id>', 'replay the events after this one first (Agentport servers)')
    .option('--raw', 'print the parts as sent (no markdown rendering, tables or chart summaries)')
    .action(async (url: string, taskId: string, f: SubscribeFlags) => {
      const relay = clientEventRelay();
      let client: A2AClient;
      try {
        checkUrl(url);
        client = await A2AClient.connect(url, { ...clientOptions(f, io), onEvent: relay.onEvent });
      } catch (err) {
        io.exit(failed(io, err, 'tasks subscribe'));
        return;
      }
      const view = new LiveView(io, { mode: viewMode(io, f.json), render: partsRendererFor(io, f.raw) });
      relay.target.view = view;
      const code = await followStream(io, client, (signal) => client.subscribeToTask(taskId, { signal, ...(f.lastEventId ? { lastEventId: f.lastEventId } : {}) }), { url, ...(f.json ? { json: true } : {}) }, view);
      if (code !== 0) io.exit(code);
    });
}

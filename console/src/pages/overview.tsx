/**
 * Overview: health of the backing services, the tasks running now, calls, errors and p95 latency
 * over the last day, and the top agents, tools, users and clients.
 */
import { ApiError, getJson } from '../api.js';
import { hourlySpec } from '../charts/hourly-usage-spec.js';
import { VegaLiteChart } from '../charts/vega-lite-chart.js';
import type { Session } from '../session.js';
import { count, ms, Status, Table, useLoad } from '../ui.js';
import type { Dimension, UsageAnswer } from '../usage-types.js';

type Ready = { status: string; checks: Record<string, string> };

async function readiness(): Promise<Ready> {
  // 503 still carries the checks: read the body whatever the status.
  const res = await fetch(new URL('../readyz', new URL('.', location.href)), { headers: { Accept: 'application/json' }, cache: 'no-store' });
  return (await res.json()) as Ready;
}

function Top({ by, title }: { by: Dimension; title: string }) {
  const top = useLoad(() => getJson<UsageAnswer>(`api/v1/usage?by=${by}&since=24h&limit=5`), [by]);
  return (
    <Status loaded={top}>
      {(a) => (
        <Table
          caption={title}
          empty="No calls in the last 24 hours."
          // Calls that name no agent (tool, user) are not one: the management API's own calls, for instance.
          rows={a.groups.filter((g) => g.key[by] != null).sort((x, y) => y.calls - x.calls)}
          columns={[
            { title: by, cell: (g) => g.key[by] },
            { title: 'Calls', cell: (g) => count(g.calls), numeric: true },
            { title: 'Errors', cell: (g) => count(g.errors), numeric: true },
            { title: 'p95', cell: (g) => ms(g.latencyMs?.p95), numeric: true },
          ]}
        />
      )}
    </Status>
  );
}

/** The states of a task not yet finished, as the Tasks page names them. */
const RUNNING = [
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_INPUT_REQUIRED', 'waiting for input'],
  ['TASK_STATE_AUTH_REQUIRED', 'waiting for authorization'],
] as const;

/** How many tasks are in each unfinished state (yours, or everyone's for an admin); null without a2a:discover. */
async function runningNow(): Promise<Array<{ label: string; count: number }> | null> {
  try {
    return await Promise.all(RUNNING.map(async ([state, label]) => ({ label, count: (await getJson<{ totalSize: number }>(`api/v1/tasks?state=${state}&pageSize=1`)).totalSize })));
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) return null;
    throw e;
  }
}

export function OverviewPage({ session }: { session: Extract<Session, { signedIn: true }> }) {
  const ready = useLoad(readiness, []);
  const hourly = useLoad(() => getJson<UsageAnswer>('api/v1/usage?bucket=hour&since=24h'), []);
  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="health">
        <h2 id="health">Health</h2>
        <Status loaded={ready}>
          {(r) => (
            <ul class="checks">
              {Object.entries(r.checks).map(([name, state]) => (
                <li key={name} class={state === 'ok' ? 'ok' : 'bad'}>
                  <strong>{name}</strong> {state}
                </li>
              ))}
            </ul>
          )}
        </Status>
      </section>
      <RunningNow admin={session.admin} />
      <section aria-labelledby="traffic">
        <h2 id="traffic">Last 24 hours{session.admin ? '' : ` (${session.username})`}</h2>
        <Status loaded={hourly}>
          {(a) => {
            const groups = a.groups;
            const now = Date.parse(a.to);
            const calls = groups.reduce((n, g) => n + g.calls, 0);
            const errors = groups.reduce((n, g) => n + g.errors, 0);
            return (
              <>
                <dl class="figures">
                  <div>
                    <dt>Calls</dt>
                    <dd id="overview-calls">{count(calls)}</dd>
                  </div>
                  <div>
                    <dt>Errors</dt>
                    <dd>{count(errors)}</dd>
                  </div>
                  <div>
                    <dt>Worst hourly p95</dt>
                    <dd>{ms(groups.reduce<number | null>((m, g) => (g.latencyMs ? Math.max(m ?? 0, g.latencyMs.p95) : m), null))}</dd>
                  </div>
                </dl>
                <VegaLiteChart
                  label="Calls and errors per hour"
                  showSpec={false}
                  spec={hourlySpec(
                    groups,
                    [
                      { name: 'calls', value: (g) => g.calls, color: '#2f5bd3' },
                      { name: 'errors', value: (g) => g.errors, color: '#b3261e' },
                    ],
                    'calls',
                    now,
                  )}
                />
                <VegaLiteChart label="p95 latency per hour" showSpec={false} spec={hourlySpec(groups, [{ name: 'p95', value: (g) => Math.round(g.latencyMs?.p95 ?? 0), color: '#6b4fa0' }], 'ms', now)} />
              </>
            );
          }}
        </Status>
      </section>
      <section aria-labelledby="top" class="tops">
        <h2 id="top">Top</h2>
        <Top by="agent" title="Agents" />
        <Top by="tool" title="MCP tools" />
        {session.admin && <Top by="subject" title="Users" />}
        {session.admin && <Top by="client" title="Clients" />}
      </section>
    </>
  );
}

function RunningNow({ admin }: { admin: boolean }) {
  const running = useLoad(runningNow, []);
  if (running.data === null) return null;
  return (
    <section aria-labelledby="running">
      <h2 id="running">Tasks running now{admin ? '' : ' (yours)'}</h2>
      <Status loaded={running}>
        {(r) => (
          <dl class="figures" id="overview-running">
            {(r ?? []).map((x) => (
              <div key={x.label}>
                <dt>{x.label}</dt>
                <dd>
                  <a href="#/tasks">{count(x.count)}</a>
                </dd>
              </div>
            ))}
          </dl>
        )}
      </Status>
    </section>
  );
}

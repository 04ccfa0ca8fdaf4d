/** Usage: the analytics API with group-by and filters, as a table, and its CSV export. */
import { useState } from 'preact/hooks';
import { call, serverUrl, getJson } from '../api.js';
import type { Session } from '../session.js';
import { count, ms, percent, Problem, Status, Table, useLoad } from '../ui.js';
import { DIMENSIONS, type Dimension, type UsageAnswer, type UsageGroup } from '../usage-types.js';

const SINCE = ['1h', '24h', '7d', '30d'] as const;
const FILTERS: Dimension[] = ['agent', 'tool', 'subject', 'outcome'];

function queryOf(by: Dimension[], since: string, filters: Partial<Record<Dimension, string>>): string {
  const q = new URLSearchParams({ since });
  if (by.length) q.set('by', by.join(','));
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  return q.toString();
}

/** What a call that names no agent was, by the face that served it (src/bindings/routes/route-usage.ts). */
const NO_AGENT: Record<string, string> = {
  management: 'management API',
  console: 'console pages',
  oauth: 'OAuth server',
  cards: 'cards and keys',
  novaeden: 'Novaeden API',
  routes: 'other routes',
};
export const noAgentLabel = (face: string | null | undefined) => `(no agent: ${(face && NO_AGENT[face.split('/')[0]!]) ?? face ?? 'unknown'})`;

/**
 * Grouped by agent but not by face, the calls without an agent are one row that says nothing:
 * they are asked for again by face (`agent=` filters on no agent) and shown one row per face.
 */
function noAgentQuery(by: Dimension[], since: string, filters: Partial<Record<Dimension, string>>): string | undefined {
  if (!by.includes('agent') || by.includes('face') || filters.agent) return undefined;
  const q = new URLSearchParams(queryOf([...by.filter((d) => d !== 'agent'), 'face'], since, filters));
  q.set('agent', '');
  return q.toString();
}

export function UsagePage({ session }: { session: Extract<Session, { signedIn: true }> }) {
  const [by, setBy] = useState<Dimension[]>(['agent']);
  const [since, setSince] = useState<string>('24h');
  const [filters, setFilters] = useState<Partial<Record<Dimension, string>>>({});
  const [exportProblem, setExportProblem] = useState<string>();
  const query = queryOf(by, since, filters);
  const breakdown = noAgentQuery(by, since, filters);
  const usage = useLoad(async () => {
    const [answer, noAgent] = await Promise.all([getJson<UsageAnswer>(`api/v1/usage?${query}`), breakdown ? getJson<UsageAnswer>(`api/v1/usage?${breakdown}`) : undefined]);
    if (!noAgent) return answer;
    const labelled: UsageGroup[] = noAgent.groups.map(({ key: { face, ...rest }, ...g }) => ({ ...g, key: { ...rest, agent: noAgentLabel(face) } }));
    return { ...answer, groups: [...answer.groups.filter((g) => g.key.agent != null), ...labelled] };
  }, [query, breakdown]);
  const filterable = FILTERS.filter((f) => session.admin || f !== 'subject');

  // The export needs the CSRF header, so it is fetched and handed to the browser as a file.
  const exportCsv = async () => {
    setExportProblem(undefined);
    try {
      const res = await call(serverUrl(`api/v1/usage?${query}&format=csv`), { headers: { Accept: 'text/csv' } });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await res.blob());
      link.download = 'usage.csv';
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (e) {
      setExportProblem(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <>
      <h1>Usage</h1>
      {!session.admin && <p class="muted">Your own calls ({session.username}).</p>}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Group by</legend>
          {DIMENSIONS.filter((d) => session.admin || d !== 'subject').map((d) => (
            <label key={d} class="check">
              <input type="checkbox" name="by" value={d} checked={by.includes(d)} onChange={(e) => setBy(e.currentTarget.checked ? [...by, d] : by.filter((x) => x !== d))} />
              {d}
            </label>
          ))}
        </fieldset>
        <label>
          Since
          <select name="since" value={since} onChange={(e) => setSince(e.currentTarget.value)}>
            {SINCE.map((s) => (
              <option key={s} value={s}>
                last {s}
              </option>
            ))}
          </select>
        </label>
        {filterable.map((f) => (
          <label key={f}>
            {f}
            <input name={`filter-${f}`} value={filters[f] ?? ''} onInput={(e) => setFilters({ ...filters, [f]: e.currentTarget.value.trim() })} />
          </label>
        ))}
        <button type="button" onClick={usage.reload}>
          Refresh
        </button>
        <button type="button" onClick={exportCsv}>
          Export CSV
        </button>
      </form>
      <Problem text={exportProblem} />
      <Status loaded={usage}>
        {(a) => (
          <Table
            caption={`Usage from ${a.from.slice(0, 16).replace('T', ' ')} to ${a.to.slice(0, 16).replace('T', ' ')} UTC`}
            empty="No calls match."
            rows={a.groups}
            columns={[
              ...a.groupBy.map((d) => ({ title: d, cell: (g: (typeof a.groups)[number]) => g.key[d] ?? '(none)' })),
              { title: 'Calls', cell: (g) => count(g.calls), numeric: true },
              { title: 'Errors', cell: (g) => count(g.errors), numeric: true },
              { title: 'Error rate', cell: (g) => percent(g.errorRate), numeric: true },
              { title: 'p95 latency', cell: (g) => ms(g.latencyMs?.p95), numeric: true },
              { title: 'Tokens', cell: (g) => count(g.tokens), numeric: true },
            ]}
          />
        )}
      </Status>
    </>
  );
}

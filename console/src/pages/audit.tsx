/** Audit: the audit log with filters, and whether its hash chain verifies. */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { Status, Table, useLoad, when } from '../ui.js';

interface AuditRecord {
  seq: number;
  time: number;
  action: string;
  outcome: string;
  actor: string;
  target?: string;
  clientAddress?: string;
}

type Verification = { ok: true; count: number; lastSeq: number } | { ok: false; count: number; seq: number; problem: string; detail: string };

const FIELDS = ['action', 'actor', 'target'] as const;
/** rows shown */
const SHOWN = 200;
/** the API's largest page */
const PAGE = 1000;
/** pages read at most: the newest of the first 50,000 matching records */
const MAX_PAGES = 50;

/**
 * The newest matching records, newest first. The API pages oldest first (by seq, `after` the last
 * one seen), so the pages are walked to the end keeping the last ones.
 */
async function newestRecords(filters: URLSearchParams): Promise<{ records: AuditRecord[]; truncated: boolean }> {
  let kept: AuditRecord[] = [];
  let after: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams(filters);
    q.set('limit', String(PAGE));
    if (after !== undefined) q.set('after', String(after));
    const answer = await getJson<{ records: AuditRecord[]; nextAfter?: number }>(`api/v1/audit?${q}`);
    kept = [...kept, ...answer.records].slice(-SHOWN);
    if (answer.nextAfter === undefined) return { records: kept.reverse(), truncated: false };
    after = answer.nextAfter;
  }
  return { records: kept.reverse(), truncated: true };
}

export function AuditPage() {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState('');
  const query = new URLSearchParams(Object.entries({ ...filters, outcome }).filter(([, v]) => v !== '')).toString();
  const records = useLoad(() => newestRecords(new URLSearchParams(query)), [query]);
  const verification = useLoad(() => getJson<Verification>('api/v1/audit/verify'), []);
  return (
    <>
      <h1>Audit</h1>
      <Status loaded={verification}>
        {(v) =>
          v.ok ? (
            <p class="verified ok" id="audit-verification">
              Chain verified: {v.count.toLocaleString('en')} records, intact up to #{v.lastSeq}.
            </p>
          ) : (
            <p class="verified bad" id="audit-verification" role="alert">
              Chain broken at #{v.seq} ({v.problem}): {v.detail}
            </p>
          )
        }
      </Status>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {FIELDS.map((f) => (
          <label key={f}>
            {f}
            <input name={f} value={filters[f] ?? ''} onInput={(e) => setFilters({ ...filters, [f]: e.currentTarget.value.trim() })} />
          </label>
        ))}
        <label>
          outcome
          <select name="outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="success">success</option>
            <option value="failure">failure</option>
            <option value="denied">denied</option>
          </select>
        </label>
      </form>
      <Status loaded={records}>
        {(r) => (
          <Table
            caption={`Audit records, newest first (the last ${SHOWN} at most${r.truncated ? ` of the first ${(MAX_PAGES * PAGE).toLocaleString('en')} matching` : ''})`}
            empty="No records match."
            rows={r.records}
            columns={[
              { title: '#', cell: (x) => x.seq, numeric: true },
              { title: 'Time (UTC)', cell: (x) => when(x.time) },
              { title: 'Action', cell: (x) => <code>{x.action}</code> },
              { title: 'Outcome', cell: (x) => x.outcome },
              { title: 'Actor', cell: (x) => x.actor },
              { title: 'Target', cell: (x) => x.target ?? '' },
            ]}
          />
        )}
      </Status>
    </>
  );
}

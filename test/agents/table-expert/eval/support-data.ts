/**
 * The evaluation's second domain: a software company's support desk (accounts, support agents,
 * tickets over 2024–2025), generated from a seeded PRNG and written as CSV files, one per table,
 * so the Table Expert reads the folder as a dataset. Weights are skewed on purpose so that
 * "which … most" questions have one clear answer.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { int, pick, prng, weighted } from '../../../../src/agents/table-expert/sample/retail.js';

const DAY_MS = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const PLANS = [
  ['Free', 40],
  ['Starter', 28],
  ['Pro', 20],
  ['Enterprise', 12],
] as const;
const REGIONS = [
  ['EMEA', 38],
  ['North America', 31],
  ['APAC', 19],
  ['LATAM', 12],
] as const;
const INDUSTRIES = [
  ['Software', 30],
  ['Retail', 24],
  ['Finance', 19],
  ['Healthcare', 15],
  ['Education', 12],
] as const;
const TEAMS = [
  ['Technical', 9],
  ['Billing', 5],
  ['Onboarding', 4],
] as const;
const PRIORITIES = [
  ['normal', 52],
  ['low', 23],
  ['high', 17],
  ['urgent', 8],
] as const;
const CHANNELS = [
  ['email', 44],
  ['chat', 31],
  ['web form', 16],
  ['phone', 9],
] as const;
const CATEGORIES = [
  ['how-to', 29],
  ['bug', 24],
  ['billing', 18],
  ['account access', 13],
  ['feature request', 10],
  ['outage', 6],
] as const;
const COMPANY_A = ['Blue', 'North', 'Bright', 'Silver', 'Green', 'Red', 'Swift', 'Clear', 'Iron', 'Open', 'Cloud', 'Stone'];
const COMPANY_B = ['Labs', 'Systems', 'Works', 'Retail', 'Health', 'Finance', 'Learning', 'Logistics', 'Media', 'Partners'];
const FIRST = ['Alex', 'Bea', 'Chen', 'Dana', 'Eli', 'Fatima', 'Gus', 'Hana', 'Ivan', 'Jo', 'Kemal', 'Lena', 'Marco', 'Nadia', 'Omar', 'Pia', 'Ravi', 'Sofia'];
const LAST = ['Adler', 'Baker', 'Costa', 'Dahl', 'Evans', 'Frank', 'Gomez', 'Hall', 'Ito', 'Jensen', 'Kowalski', 'Lind'];

export interface SupportData {
  accounts: Array<[number, string, string, string, string, string]>;
  agents: Array<[number, string, string, string]>;
  tickets: Array<[number, number, number, string, string | null, string, string, string, string, number | null, number]>;
}

export const SUPPORT_SEED = 20240601;

export function generateSupportData(seed = SUPPORT_SEED): SupportData {
  const rng = prng(seed);
  const accounts: SupportData['accounts'] = [];
  const names = new Set<string>();
  for (let id = 1; id <= 400; id++) {
    let name = `${pick(rng, COMPANY_A)} ${pick(rng, COMPANY_B)}`;
    for (let n = 2; names.has(name); n++) name = `${name.replace(/ \d+$/, '')} ${n}`;
    names.add(name);
    const created = Date.UTC(2021, 0, 1) + int(rng, 0, 1825) * DAY_MS;
    accounts.push([id, name, weighted(rng, PLANS), weighted(rng, REGIONS), weighted(rng, INDUSTRIES), iso(created)]);
  }
  const agents: SupportData['agents'] = [];
  for (let id = 1; id <= 18; id++) {
    agents.push([id, `${FIRST[id - 1]} ${pick(rng, LAST)}`, weighted(rng, TEAMS), iso(Date.UTC(2019, 0, 1) + int(rng, 0, 2190) * DAY_MS)]);
  }
  // some accounts and agents carry far more tickets than others
  const accountWeight = accounts.map(([, , plan]) => (plan === 'Enterprise' ? 4 : plan === 'Pro' ? 2.5 : plan === 'Starter' ? 1.5 : 0.6) * (0.2 + rng() * rng() * 4));
  const agentWeight = agents.map((_, i) => 1 + ((i * 7) % 18) / 4);
  const tickets: SupportData['tickets'] = [];
  const start = Date.UTC(2024, 0, 1);
  for (let id = 1; id <= 6000; id++) {
    const day = Math.floor(rng() ** 0.8 * 731);
    const opened = start + day * DAY_MS;
    const accountAt = weighted(
      rng,
      accountWeight.map((w, i) => [i, w] as const),
    );
    const [accountId, , plan] = accounts[accountAt]!;
    const category = weighted(rng, CATEGORIES);
    const team =
      category === 'billing'
        ? 'Billing'
        : category === 'account access' || category === 'how-to'
          ? weighted(rng, [
              ['Onboarding', 3],
              ['Technical', 2],
            ] as const)
          : 'Technical';
    const teamAgents = agents.map((a, i) => [i, a[2] === team ? agentWeight[i]! : 0] as const).filter(([, w]) => w > 0);
    const agentId = agents[weighted(rng, teamAgents)]![0];
    const priority =
      category === 'outage'
        ? weighted(rng, [
            ['urgent', 6],
            ['high', 3],
          ] as const)
        : weighted(rng, PRIORITIES);
    const channel = weighted(rng, CHANNELS);
    const recent = day > 731 - 21;
    const status = recent
      ? weighted(rng, [
          ['open', 5],
          ['pending', 3],
          ['solved', 2],
        ] as const)
      : weighted(rng, [
          ['closed', 70],
          ['solved', 26],
          ['pending', 2],
          ['open', 2],
        ] as const);
    const resolvedDays = priority === 'urgent' ? int(rng, 0, 2) : priority === 'high' ? int(rng, 0, 5) : int(rng, 1, 14);
    const resolved = status === 'closed' || status === 'solved' ? iso(Math.min(opened + resolvedDays * DAY_MS, Date.UTC(2025, 11, 31))) : null;
    const base = priority === 'urgent' ? 12 : priority === 'high' ? 35 : priority === 'normal' ? 90 : 200;
    const firstResponse = Math.max(1, Math.round(base * (0.3 + rng() * 1.6) * (plan === 'Enterprise' ? 0.6 : 1) * (channel === 'chat' ? 0.4 : 1)));
    const unhappy = (category === 'outage' ? 1.4 : category === 'billing' ? 0.7 : 0) + (firstResponse > 120 ? 0.8 : 0) + (team === 'Billing' ? 0.3 : 0);
    const satisfaction = resolved && rng() < 0.62 ? Math.max(1, Math.min(5, Math.round(4.6 - unhappy - rng() * 1.5))) : null;
    tickets.push([id, accountId, agentId, iso(opened), resolved, priority, channel, category, status, satisfaction, firstResponse]);
  }
  return { accounts, agents, tickets };
}

const HEADERS = {
  accounts: ['account_id', 'name', 'plan', 'region', 'industry', 'created_date'],
  agents: ['agent_id', 'name', 'team', 'hire_date'],
  tickets: ['ticket_id', 'account_id', 'agent_id', 'opened_date', 'resolved_date', 'priority', 'channel', 'category', 'status', 'satisfaction', 'first_response_minutes'],
} as const;

/** Writes accounts.csv, agents.csv and tickets.csv into `dir` (created when missing). */
export async function writeSupportData(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const data = generateSupportData();
  for (const table of ['accounts', 'agents', 'tickets'] as const) {
    const rows = (data[table] as Array<Array<string | number | null>>).map((r) => r.map((v) => (v === null ? '' : String(v))).join(','));
    await writeFile(path.join(dir, `${table}.csv`), `${[HEADERS[table].join(','), ...rows].join('\n')}\n`);
  }
  return dir;
}

/**
 * The Grafana dashboard and the Prometheus alert rules in deploy/observability/ against the code:
 * every expression parses as PromQL (the Prometheus project's own Lezer grammar), and every metric
 * it names is in a running server's /metrics, so renaming a metric without the dashboard fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { parseExposition, seriesNames } from '../support/prometheus.js';

const DIR = path.resolve(import.meta.dirname, '../../deploy/observability');
/** Series Prometheus makes itself for every target, not the server. */
const PROMETHEUS_OWN = new Set(['up']);

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (parseYaml(readFileSync(path.join(DIR, 'prometheus-alerts.yaml'), 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap((g) => g.rules);

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string; refId: string }>;
  panels?: Panel[];
}
const dashboard = JSON.parse(readFileSync(path.join(DIR, 'grafana-dashboard.json'), 'utf8')) as { uid: string; title: string; panels: Panel[]; templating: { list: Array<{ name: string; query: unknown }> } };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardQueries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${p.title} ${t.refId}`, expr: t.expr })));

/** A dashboard query as Grafana sends it: its range variables interpolated. */
const interpolated = (expr: string) => expr.replaceAll('$__rate_interval', '5m');

/** The syntax errors of a PromQL expression (empty: it parses), and the metric names it selects. */
function promql(expr: string): { errors: string[]; metrics: string[] } {
  const errors: string[] = [];
  const metrics: string[] = [];
  parser.parse(expr).iterate({
    enter: (n) => {
      if (n.type.isError) errors.push(`syntax error at ${n.from}: ${JSON.stringify(expr.slice(Math.max(0, n.from - 20), n.to + 20))}`);
      if (n.name === 'Identifier' && n.node.parent?.name === 'VectorSelector') metrics.push(expr.slice(n.from, n.to));
    },
  });
  return { errors, metrics };
}

let exposed: Set<string>;
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ metrics: { listen: '127.0.0.1:0' } });
  exposed = seriesNames(await parseExposition(await (await fetch(s.urls.metrics!)).text()));
});

afterAll(async () => {
  await s?.stop();
});

describe('deploy/observability/prometheus-alerts.yaml', () => {
  it('has the alerts the runbook names, each with a severity and a summary', () => {
    const names = rules.map((r) => r.alert);
    for (const a of ['AgentportReplicaDown', 'AgentportHighErrorRate', 'AgentportA2ALatencyP99High', 'AgentportPushOutboxOld', 'AgentportBusLagHigh']) expect(names).toContain(a);
    for (const r of rules) {
      expect(r.labels?.severity, r.alert).toMatch(/^(critical|warning)$/);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
    }
  });

  it('every expression parses as PromQL', () => {
    for (const r of rules) expect(promql(r.expr).errors, r.alert).toEqual([]);
  });

  it('every metric a rule names is exported by the server', () => {
    for (const r of rules) {
      const names = promql(r.expr).metrics;
      expect(names.length, r.alert).toBeGreaterThan(0);
      for (const m of names) expect(exposed.has(m) || PROMETHEUS_OWN.has(m), `${r.alert}: ${m}`).toBe(true);
    }
  });

  it('the PromQL check itself refuses a broken expression', () => {
    expect(promql('sum(rate(agentport_requests_total[5m])').errors).not.toEqual([]);
    expect(promql('sum by (face) (rate(agentport_requests_total{status=~"5.."}[5m]))').metrics).toEqual(['agentport_requests_total']);
  });
});

describe('deploy/observability/grafana-dashboard.json', () => {
  it('covers traffic, errors, latency, tasks, push, store and bus, and replicas', () => {
    expect(dashboard.uid).toBe('agentport-overview');
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(['Traffic', 'Errors', 'Latency', 'Tasks', 'Push notifications', 'Store and bus', 'Replicas']);
    expect(dashboardQueries.length).toBeGreaterThan(20);
  });

  it('every panel query parses as PromQL', () => {
    for (const q of dashboardQueries) expect(promql(interpolated(q.expr)).errors, q.where).toEqual([]);
  });

  it('every metric a panel or a variable names is exported by the server', () => {
    const variableQueries = dashboard.templating.list.flatMap((v) => {
      const q = (v.query as { query?: string } | undefined)?.query;
      const m = typeof q === 'string' ? /^label_values\((\w+)/.exec(q) : null;
      return m ? [m[1]!] : [];
    });
    expect(variableQueries.length).toBeGreaterThan(0);
    const used = [...dashboardQueries.flatMap((q) => promql(interpolated(q.expr)).metrics), ...variableQueries];
    for (const m of used) expect(exposed.has(m) || PROMETHEUS_OWN.has(m), m).toBe(true);
    // Drift the other way: each of Agentport's own metrics has a place on the dashboard.
    for (const m of [...exposed].filter((n) => n.startsWith('agentport_') || n.startsWith('mcp_'))) {
      const family = m.replace(/_(bucket|sum|count)$/, '');
      expect(
        used.some((u) => u === m || u.replace(/_(bucket|sum|count)$/, '') === family),
        `${family} is on no panel`,
      ).toBe(true);
    }
  });
});

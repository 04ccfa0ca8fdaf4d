/**
 * Join paths between tables along the inferred relations. Following a relation from its many side
 * to its one side (order_lines → orders) keeps one row per base row; the other way (customers →
 * orders) multiplies rows, a "fan-out", which the planner must account for (count distinct keys)
 * or refuse (a sum would count amounts twice). Paths avoid fan-outs where they can.
 */
import type { Relation } from '../catalog/catalog.js';

export interface JoinStep {
  /** the table joined in */
  table: string;
  /** `"a"."x" = "b"."y"`, as column pairs */
  on: { left: { table: string; column: string }; right: { table: string; column: string } };
  /** true when this step multiplies rows */
  fanout: boolean;
}

export interface Reach {
  table: string;
  hops: number;
  fanout: boolean;
  steps: JoinStep[];
}

/** Cheapest path from base to every reachable table: hops, with a fan-out costing ten hops. */
export function reachable(base: string, relations: readonly Relation[]): Map<string, Reach> {
  const out = new Map<string, Reach & { cost: number }>([[base, { table: base, hops: 0, fanout: false, steps: [], cost: 0 }]]);
  const queue = [base];
  while (queue.length) {
    queue.sort((a, b) => out.get(a)!.cost - out.get(b)!.cost);
    const cur = out.get(queue.shift()!)!;
    for (const r of relations) {
      const edges: Array<[string, JoinStep]> = [];
      if (r.from.table === cur.table) edges.push([r.to.table, { table: r.to.table, on: { left: r.from, right: r.to }, fanout: false }]);
      if (r.to.table === cur.table) edges.push([r.from.table, { table: r.from.table, on: { left: r.to, right: r.from }, fanout: !r.oneToOne }]);
      for (const [t, step] of edges) {
        const cost = cur.cost + (step.fanout ? 10 : 1);
        const known = out.get(t);
        if (known && known.cost <= cost) continue;
        out.set(t, { table: t, hops: cur.hops + 1, fanout: cur.fanout || step.fanout, steps: [...cur.steps, step], cost });
        queue.push(t);
      }
    }
  }
  return out;
}

/** The joins that bring `tables` in, each table once, in path order; undefined if one is unreachable. */
export function joinsFor(base: string, tables: Iterable<string>, relations: readonly Relation[]): { steps: JoinStep[]; fanout: boolean } | undefined {
  const reach = reachable(base, relations);
  const steps: JoinStep[] = [];
  const joined = new Set([base]);
  let fanout = false;
  for (const t of [...new Set(tables)].sort((a, b) => (reach.get(a)?.hops ?? 99) - (reach.get(b)?.hops ?? 99))) {
    const r = reach.get(t);
    if (!r) return undefined;
    fanout ||= r.fanout;
    for (const s of r.steps) {
      if (joined.has(s.table)) continue;
      joined.add(s.table);
      steps.push(s);
    }
  }
  return { steps, fanout };
}

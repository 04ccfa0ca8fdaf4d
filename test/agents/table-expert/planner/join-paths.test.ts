/**
 * Join paths (planner/joins.ts) on small relation graphs whose cheapest paths are worked out by
 * hand: a step from the many side to the one side costs 1, the other way (a fan-out) 10, unless
 * the relation is one-to-one.
 *
 *   lines → orders → customers → regions   (each arrow: many side → one side)
 *   profiles ↔ customers                    (one-to-one)
 *   lines → products; shipments → orders
 */
import { describe, expect, it } from 'vitest';
import type { Relation } from '../../../../src/agents/table-expert/catalog/catalog.js';
import { joinsFor, reachable } from '../../../../src/agents/table-expert/planner/joins.js';

const rel = (from: string, fromCol: string, to: string, toCol: string, oneToOne?: true): Relation => ({
  from: { table: from, column: fromCol },
  to: { table: to, column: toCol },
  ...(oneToOne ? { oneToOne } : {}),
});

const relations: Relation[] = [
  rel('lines', 'order_id', 'orders', 'order_id'),
  rel('orders', 'customer_id', 'customers', 'customer_id'),
  rel('customers', 'region_id', 'regions', 'region_id'),
  rel('profiles', 'customer_id', 'customers', 'customer_id', true),
  rel('lines', 'product_id', 'products', 'product_id'),
  rel('shipments', 'order_id', 'orders', 'order_id'),
];

/** A path as `table(fanout?)` per step, to compare at a glance. */
const pathOf = (steps: Array<{ table: string; fanout: boolean }>) => steps.map((s) => `${s.table}${s.fanout ? '*' : ''}`);

describe('reachable', () => {
  it('walks from the many side to the one side without fan-out: lines reach regions in 3 hops', () => {
    const reach = reachable('lines', relations);
    expect(reach.get('lines')).toMatchObject({ hops: 0, fanout: false, steps: [] });
    const regions = reach.get('regions')!;
    expect(regions.hops).toBe(3);
    expect(regions.fanout).toBe(false);
    expect(pathOf(regions.steps)).toEqual(['orders', 'customers', 'regions']);
    expect(regions.steps[0]!.on).toEqual({ left: { table: 'lines', column: 'order_id' }, right: { table: 'orders', column: 'order_id' } });
  });

  it('marks a step towards the many side as a fan-out, and every step after it', () => {
    const reach = reachable('customers', relations);
    const lines = reach.get('lines')!;
    expect(pathOf(lines.steps)).toEqual(['orders*', 'lines*']);
    expect(lines.fanout).toBe(true);
    expect(lines.hops).toBe(2);
    // the reverse join names the one side first
    expect(lines.steps[0]!.on).toEqual({ left: { table: 'customers', column: 'customer_id' }, right: { table: 'orders', column: 'customer_id' } });
    // products via lines: fan-out, fan-out, then towards the one side, still a fan-out path
    expect(reach.get('products')!.fanout).toBe(true);
    expect(pathOf(reach.get('products')!.steps)).toEqual(['orders*', 'lines*', 'products']);
  });

  it('a one-to-one relation keeps one row either way', () => {
    const reach = reachable('customers', relations);
    expect(reach.get('profiles')).toMatchObject({ hops: 1, fanout: false });
    expect(pathOf(reach.get('profiles')!.steps)).toEqual(['profiles']);
  });

  it('prefers a longer path without fan-out to a shorter one with it', () => {
    // a → b directly is a fan-out (b is the many side); a → c → b is two plain steps
    const graph = [rel('b', 'a_id', 'a', 'a_id'), rel('a', 'c_id', 'c', 'c_id'), rel('c', 'b_id', 'b', 'b_id')];
    const b = reachable('a', graph).get('b')!;
    expect(pathOf(b.steps)).toEqual(['c', 'b']);
    expect(b.fanout).toBe(false);
    expect(b.hops).toBe(2);
  });

  it('takes the cheaper of two fan-out paths: one fan-out (10 + 1) over two (20)', () => {
    // from x: y is a fan-out away; z is a fan-out then a plain step via y (11), or two fan-outs via w (20)
    const graph = [rel('y', 'x_id', 'x', 'x_id'), rel('y', 'z_id', 'z', 'z_id'), rel('w', 'x_id', 'x', 'x_id'), rel('z', 'w_id', 'w', 'w_id')];
    const z = reachable('x', graph).get('z')!;
    expect(pathOf(z.steps)).toEqual(['y*', 'z']);
  });

  it('finds the cheapest path whatever order the queue met the tables in', () => {
    // s reaches t by a fan-out (cost 10) found first, and by three plain steps (cost 3) found later
    const graph = [rel('t', 's_id', 's', 's_id'), rel('s', 'p_id', 'p', 'p_id'), rel('p', 'q_id', 'q', 'q_id'), rel('q', 't_id', 't', 't_id')];
    const t = reachable('s', graph).get('t')!;
    expect(pathOf(t.steps)).toEqual(['p', 'q', 't']);
    expect(t.hops).toBe(3);
  });

  it('reaches exactly the related tables, and no unrelated one', () => {
    expect([...reachable('orders', relations).keys()].sort()).toEqual(['customers', 'lines', 'orders', 'products', 'profiles', 'regions', 'shipments']);
    expect(reachable('orders', relations).has('weather')).toBe(false);
  });

  it('of two paths that cost the same, keeps the one met first in order of cost', () => {
    // from a: x is a fan-out away (10), then t one plain step on (11); y is one plain step (1), then
    // t a fan-out on (11). Taken cheapest first, y is expanded before x, so t is reached through y.
    const graph = [rel('x', 'a_id', 'a', 'a_id'), rel('a', 'y_id', 'y', 'y_id'), rel('x', 't_id', 't', 't_id'), rel('t', 'y_id', 'y', 'y_id')];
    const t = reachable('a', graph).get('t')!;
    expect(pathOf(t.steps)).toEqual(['y', 't*']);
  });
});

describe('joinsFor', () => {
  it('joins each table once, nearest first, whatever order they are asked in', () => {
    const j = joinsFor('lines', ['regions', 'customers', 'orders', 'lines'], relations)!;
    expect(pathOf(j.steps)).toEqual(['orders', 'customers', 'regions']);
    expect(j.fanout).toBe(false);
  });

  it('joins the tables of two branches, sharing their common steps', () => {
    const j = joinsFor('lines', ['regions', 'products'], relations)!;
    expect(pathOf(j.steps)).toEqual(['products', 'orders', 'customers', 'regions']);
  });

  it('is a fan-out when any table needed is reached through one', () => {
    const j = joinsFor('orders', ['customers', 'lines'], relations)!;
    expect(pathOf(j.steps)).toEqual(['customers', 'lines*']);
    expect(j.fanout).toBe(true);
    expect(joinsFor('orders', ['customers'], relations)!.fanout).toBe(false);
  });

  it('needs no join for the base alone, and none is a fan-out', () => {
    expect(joinsFor('orders', ['orders'], relations)).toEqual({ steps: [], fanout: false });
  });

  it('gives nothing when a table cannot be reached', () => {
    expect(joinsFor('orders', ['customers', 'weather'], relations)).toBeUndefined();
    expect(joinsFor('orders', ['weather', 'customers'], relations)).toBeUndefined();
    expect(joinsFor('orders', ['weather'], relations)).toBeUndefined();
  });
});

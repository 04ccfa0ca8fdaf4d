/**
 * The retail sample's answers computed in plain JS over the generated rows, independently of the
 * planner and of SQL: the expected side of the golden tests. Money is summed in integer cents.
 */
import { generateRetailSample, type Customer, type Order, type OrderLine, type Product } from '../../../src/agents/table-expert/sample/retail.js';
import type { Row } from './helpers.js';

export const sample = generateRetailSample();
export const productById = new Map(sample.products.map((p) => [p.product_id, p]));
export const orderById = new Map(sample.orders.map((o) => [o.order_id, o]));
export const customerById = new Map(sample.customers.map((c) => [c.customer_id, c]));

export interface Line extends OrderLine {
  order: Order;
  product: Product;
  customer: Customer;
}
export const lines: Line[] = sample.order_lines.map((l) => {
  const order = orderById.get(l.order_id)!;
  return { ...l, order, product: productById.get(l.product_id)!, customer: customerById.get(order.customer_id)! };
});

export const cents = (c: number): number => Math.round(c) / 100;

export function count<T>(rows: T[], pred: (r: T) => boolean = () => true): number {
  return rows.filter(pred).length;
}

/** key → aggregate, as [key, value] rows. */
export function groupBy<T, K extends string | number>(rows: T[], key: (r: T) => K, agg: (rs: T[]) => number): Array<[K, number]> {
  const m = new Map<K, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return [...m.entries()].map(([k, rs]) => [k, agg(rs)]);
}

const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sorted by value (desc unless asc), ties by key ascending: the planner's ORDER BY. */
export function byValue<K extends string | number>(rows: Array<[K, number]>, dir: 'asc' | 'desc' = 'desc'): Array<[K, number]> {
  return [...rows].sort((a, b) => (dir === 'desc' ? b[1] - a[1] : a[1] - b[1]) || cmp(a[0], b[0]));
}
export function byKey<K extends string | number>(rows: Array<[K, number]>): Array<[K, number]> {
  return [...rows].sort((a, b) => cmp(a[0], b[0]));
}

export const sumCents = (f: (l: Line) => number) => (ls: Line[]) => ls.reduce((s, l) => s + f(l), 0) / 100;
export const revenue = sumCents((l) => l.amount_cents);

export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

export const year = (iso: string) => Number(iso.slice(0, 4));
export const month = (iso: string) => iso.slice(0, 7);
export const quarter = (iso: string) => `${iso.slice(0, 4)}-Q${Math.floor((Number(iso.slice(5, 7)) - 1) / 3) + 1}`;

export const productRow = (p: Product): Row => [p.product_id, p.name, p.category, cents(p.unit_price_cents)];
export const orderRow = (o: Order): Row => [o.order_id, o.customer_id, o.order_date, o.status, o.channel];

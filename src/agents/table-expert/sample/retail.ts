/**
 * The retail sample: a small shop's customers, products, orders and order lines over 2023–2024,
 * generated from a seeded PRNG so every machine gets the same rows (tests compute their expected
 * answers from these rows). Money is kept in integer cents until it is written.
 */

export const SAMPLE_SEED = 20230101;
/** bump when the generator changes: cached files of another version are regenerated */
export const SAMPLE_VERSION = 1;

export interface Customer {
  customer_id: number;
  name: string;
  email: string;
  city: string;
  country: string;
  segment: string;
  signup_date: string;
}
export interface Product {
  product_id: number;
  name: string;
  category: string;
  unit_price_cents: number;
}
export interface Order {
  order_id: number;
  customer_id: number;
  order_date: string;
  status: string;
  channel: string;
}
export interface OrderLine {
  order_id: number;
  line_number: number;
  product_id: number;
  quantity: number;
  unit_price_cents: number;
  /** percent: 0, 5, 10 or 20 */
  discount_pct: number;
  amount_cents: number;
}
export interface RetailSample {
  customers: Customer[];
  products: Product[];
  orders: Order[];
  order_lines: OrderLine[];
}

/** mulberry32: tiny, fast and good enough for sample data; the same seed gives the same stream. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seeded draws the sample generators share (this one, and the evaluation's second domain in test/). */
export type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
export function weighted<T>(rng: Rng, items: ReadonlyArray<readonly [T, number]>): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1]![0];
}
export const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

const FIRST = ['Anna', 'Ben', 'Clara', 'David', 'Emma', 'Felix', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Karla', 'Liam', 'Mia', 'Noah', 'Olga', 'Paul', 'Quinn', 'Rosa', 'Sam', 'Tara', 'Umar', 'Vera', 'Wim', 'Yara', 'Zoe'];
const LAST = ['Schmidt', 'Martin', 'Smith', 'Garcia', 'Rossi', 'de Vries', 'Brown', 'Müller', 'Dubois', 'Lopez', 'Bianchi', 'Jansen', 'Wilson', 'Fischer', 'Moreau', 'Taylor', 'Romano', 'Bakker', 'Clark', 'Weber'];
const COUNTRIES: ReadonlyArray<readonly [string, readonly string[], number]> = [
  ['Germany', ['Berlin', 'Hamburg', 'Munich', 'Cologne'], 24],
  ['France', ['Paris', 'Lyon', 'Marseille'], 16],
  ['United States', ['New York', 'Chicago', 'Austin', 'Seattle'], 22],
  ['United Kingdom', ['London', 'Manchester', 'Leeds'], 14],
  ['Spain', ['Madrid', 'Barcelona', 'Valencia'], 9],
  ['Italy', ['Rome', 'Milan', 'Turin'], 7],
  ['Netherlands', ['Amsterdam', 'Rotterdam', 'Utrecht'], 5],
  ['Canada', ['Toronto', 'Vancouver', 'Montreal'], 3],
];
const SEGMENTS: ReadonlyArray<readonly [string, number]> = [
  ['Consumer', 60],
  ['Small Business', 25],
  ['Corporate', 15],
];
const CATEGORIES: ReadonlyArray<readonly [string, readonly string[], number, number]> = [
  // category, nouns, min price, max price (whole currency units)
  ['Electronics', ['Headphones', 'Speaker', 'Charger', 'Keyboard', 'Monitor', 'Webcam', 'Router', 'Tablet'], 15, 600],
  ['Home', ['Lamp', 'Kettle', 'Blender', 'Toaster', 'Pillow', 'Blanket', 'Vase', 'Clock'], 8, 180],
  ['Books', ['Novel', 'Cookbook', 'Atlas', 'Biography', 'Guide', 'Anthology'], 6, 45],
  ['Sports', ['Yoga Mat', 'Dumbbell', 'Racket', 'Helmet', 'Backpack', 'Water Bottle'], 10, 250],
  ['Toys', ['Puzzle', 'Robot', 'Board Game', 'Kite', 'Plush Bear', 'Train Set'], 5, 120],
  ['Clothing', ['Jacket', 'Sweater', 'Scarf', 'Sneakers', 'Cap', 'Raincoat'], 12, 220],
];
const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Smart', 'Ultra', 'Vintage', 'Pro', 'Mini', 'Urban'];
const STATUSES: ReadonlyArray<readonly [string, number]> = [
  ['completed', 82],
  ['cancelled', 8],
  ['returned', 6],
  ['pending', 4],
];
const CHANNELS: ReadonlyArray<readonly [string, number]> = [
  ['online', 60],
  ['store', 30],
  ['phone', 10],
];
const DISCOUNTS: ReadonlyArray<readonly [number, number]> = [
  [0, 70],
  [5, 15],
  [10, 10],
  [20, 5],
];
/** more orders in November and December */
const MONTH_WEIGHT = [0.8, 0.75, 0.9, 0.95, 1, 0.95, 0.9, 0.9, 1, 1.05, 1.4, 1.6];

const DAY_MS = 86_400_000;
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export function generateRetailSample(seed = SAMPLE_SEED, sizes = { customers: 2000, orders: 20000 }): RetailSample {
  const rng = prng(seed);

  const products: Product[] = [];
  const usedNames = new Set<string>();
  for (const [category, nouns, lo, hi] of CATEGORIES) {
    for (let i = 0; i < 20; i++) {
      let name = `${pick(rng, ADJECTIVES)} ${pick(rng, nouns)}`;
      for (let n = 2; usedNames.has(name); n++) name = `${name.replace(/ \d+$/, '')} ${n}`;
      usedNames.add(name);
      const price = int(rng, lo * 100, hi * 100);
      // prices end in .99 or .49 like a shop's
      const cents = Math.max(99, Math.floor(price / 100) * 100 + (rng() < 0.7 ? 99 : 49));
      products.push({ product_id: products.length + 1, name, category, unit_price_cents: cents });
    }
  }

  const start2021 = Date.UTC(2021, 0, 1);
  const end2024 = Date.UTC(2024, 11, 31);
  const customers: Customer[] = [];
  for (let i = 1; i <= sizes.customers; i++) {
    const first = pick(rng, FIRST);
    const last = pick(rng, LAST);
    const country = weighted(
      rng,
      COUNTRIES.map(([c, , w]) => [c, w] as const),
    );
    const cities = COUNTRIES.find(([c]) => c === country)![1];
    customers.push({
      customer_id: i,
      name: `${first} ${last}`,
      email: `${first}.${last}.${i}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, ''),
      city: pick(rng, cities),
      country,
      segment: weighted(rng, SEGMENTS),
      signup_date: isoDate(start2021 + Math.floor(rng() * ((end2024 - start2021) / DAY_MS + 1)) * DAY_MS),
    });
  }
  // Some customers buy far more often than others.
  const activity = customers.map(() => 0.2 + rng() * rng() * 5);
  const activityTotal = activity.reduce((s, a) => s + a, 0);
  const cumulative: number[] = [];
  activity.reduce((s, a, i) => ((cumulative[i] = s + a / activityTotal), s + a / activityTotal), 0);
  const drawCustomer = (): Customer => {
    const r = rng();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return customers[lo]!;
  };

  // Order dates: days of 2023–2024, weighted by month, sorted so order ids follow time.
  const start = Date.UTC(2023, 0, 1);
  const days = Math.round((Date.UTC(2024, 11, 31) - start) / DAY_MS) + 1;
  const dayWeights = Array.from({ length: days }, (_, d) => MONTH_WEIGHT[new Date(start + d * DAY_MS).getUTCMonth()]! * (1 + d / days / 2));
  const dayTotal = dayWeights.reduce((s, w) => s + w, 0);
  const orderDays: number[] = [];
  for (let d = 0, carry = 0; d < days; d++) {
    carry += (dayWeights[d]! / dayTotal) * sizes.orders;
    while (carry >= 1 && orderDays.length < sizes.orders) {
      orderDays.push(d);
      carry -= 1;
    }
  }
  while (orderDays.length < sizes.orders) orderDays.push(days - 1);

  const orders: Order[] = [];
  const lines: OrderLine[] = [];
  const lastDay = days - 1;
  for (const d of orderDays) {
    const customer = drawCustomer();
    const orderId = orders.length + 1;
    // Pending orders are the recent ones only.
    let status = weighted(rng, STATUSES);
    if (status === 'pending' && d < lastDay - 30) status = 'completed';
    orders.push({ order_id: orderId, customer_id: customer.customer_id, order_date: isoDate(start + d * DAY_MS), status, channel: weighted(rng, CHANNELS) });
    const lineCount = weighted(rng, [
      [1, 30],
      [2, 30],
      [3, 20],
      [4, 12],
      [5, 8],
    ] as const);
    const chosen = new Set<number>();
    for (let n = 1; n <= lineCount; n++) {
      let product = pick(rng, products);
      while (chosen.has(product.product_id)) product = pick(rng, products);
      chosen.add(product.product_id);
      const quantity = weighted(rng, [
        [1, 55],
        [2, 25],
        [3, 12],
        [4, 5],
        [5, 3],
      ] as const);
      const discount = weighted(rng, DISCOUNTS);
      const amount = Math.round((quantity * product.unit_price_cents * (100 - discount)) / 100);
      lines.push({ order_id: orderId, line_number: n, product_id: product.product_id, quantity, unit_price_cents: product.unit_price_cents, discount_pct: discount, amount_cents: amount });
    }
  }
  return { customers, products, orders, order_lines: lines };
}

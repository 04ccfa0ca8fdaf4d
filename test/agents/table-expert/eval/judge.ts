/**
 * Judges an answer's rows against the gold result. Column names are ignored (the planner names
 * its columns its own way) and the answer may carry extra columns (a product's id beside its
 * name), but every gold column must appear in the answer with the same values in the same rows,
 * and the row count must be equal: an answer listing every product when one was asked for is wrong.
 * When the gold statement orders its rows, the answer must list them in that order (rows that tie
 * on every numeric gold column may come in either order).
 */
export type Cell = string | number | boolean | null;

export interface ResultTable {
  rows: Cell[][];
}

export interface Judgement {
  ok: boolean;
  reason?: string;
}

const asNumber = (v: Cell): number | undefined => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v.trim())) return Number(v);
  return undefined;
};

/** Equal cells: numbers within half a cent (and a relative hair for large sums), else identical. */
export function sameCell(a: Cell, b: Cell): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return Math.abs(x - y) <= 0.005 + 1e-9 * Math.max(Math.abs(x), Math.abs(y));
  if (a === null || b === null) return a === b;
  return String(a) === String(b);
}

function compareCells(a: Cell, b: Cell): number {
  if (sameCell(a, b)) return 0;
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  if (a === null) return -1;
  if (b === null) return 1;
  return String(a) < String(b) ? -1 : 1;
}

const compareRows = (a: Cell[], b: Cell[]): number => {
  for (let i = 0; i < a.length; i++) {
    const c = compareCells(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
};

const column = (t: ResultTable, k: number): Cell[] => t.rows.map((r) => r[k] ?? null);
const sameMultiset = (a: Cell[], b: Cell[]): boolean => {
  const x = [...a].sort(compareCells);
  const y = [...b].sort(compareCells);
  return x.every((v, i) => sameCell(v, y[i]!));
};
const rowsEqual = (a: Cell[][], b: Cell[][]): boolean => a.every((r, i) => r.every((v, j) => sameCell(v, b[i]![j]!)));

export function judge(answer: ResultTable, gold: ResultTable, ordered: boolean): Judgement {
  if (answer.rows.length !== gold.rows.length) return { ok: false, reason: `${answer.rows.length} rows, expected ${gold.rows.length}` };
  if (gold.rows.length === 0) return { ok: true };
  const goldWidth = gold.rows[0]!.length;
  const answerWidth = answer.rows[0]!.length;
  // candidate answer columns for each gold column: the same values, in any order
  const candidates: number[][] = [];
  for (let j = 0; j < goldWidth; j++) {
    const g = column(gold, j);
    const c: number[] = [];
    for (let k = 0; k < answerWidth; k++) if (sameMultiset(g, column(answer, k))) c.push(k);
    if (c.length === 0) return { ok: false, reason: `no answer column holds the values of gold column ${j + 1} (${g.slice(0, 3).map(String).join(', ')}…)` };
    candidates.push(c);
  }
  const numericGold = [...Array(goldWidth).keys()].filter((j) => column(gold, j).every((v) => v === null || asNumber(v) !== undefined));
  const tryMapping = (mapping: number[]): boolean => {
    const projected = answer.rows.map((r) => mapping.map((k) => r[k] ?? null));
    if (ordered) {
      if (rowsEqual(projected, gold.rows)) return true;
      // ties: the numeric gold columns in order, and the same rows overall
      const keys = numericGold.length ? numericGold : [...Array(goldWidth).keys()];
      const inOrder = gold.rows.every((g, i) => keys.every((j) => sameCell(g[j]!, projected[i]![j]!)));
      if (!inOrder) return false;
    }
    return rowsEqual([...projected].sort(compareRows), [...gold.rows].sort(compareRows));
  };
  // small search over the assignments (gold results are a few columns wide)
  const mapping: number[] = [];
  const search = (j: number): boolean => {
    if (j === goldWidth) return tryMapping(mapping);
    for (const k of candidates[j]!) {
      mapping[j] = k;
      if (search(j + 1)) return true;
    }
    return false;
  };
  return search(0) ? { ok: true } : { ok: false, reason: ordered ? 'the rows differ or come in another order' : 'the values do not line up row by row' };
}

/** Whether the gold statement fixes the order of its rows (an ORDER BY outside parentheses). */
export function goldIsOrdered(sql: string): boolean {
  let depth = 0;
  const s = sql.replace(/'[^']*'/g, "''");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && /^order\s+by\b/i.test(s.slice(i, i + 12))) return true;
  }
  return false;
}

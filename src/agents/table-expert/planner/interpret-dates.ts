/**
 * Dates in a question: "in 2024", "in March 2024", "Q1 2024", "before 2024-06-01",
 * "between 2023-01-01 and 2023-03-31", "in March" (any year). Claims the words it places.
 */
import type { Keyword } from './lexicon.js';
import type { Draft } from './draft.js';
import { COMPARE, isKw } from './interpret-words.js';
import type { QToken } from './tokens.js';

const pad = (n: number) => String(n).padStart(2, '0');
const monthStart = (y: number, m: number) => `${y}-${pad(m)}-01`;
const nextMonth = (y: number, m: number) => (m === 12 ? monthStart(y + 1, 1) : monthStart(y, m + 1));
function addDay(iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function datePass(tokens: QToken[], d: Draft, next: (i: number, skip?: Keyword[]) => number, use: (...i: number[]) => void): void {
  const n = tokens.length;
  // Dates: "in 2024", "in March 2024", "Q1 2024", "before 2024-06-01", "between 2023-01-01 and 2023-03-31".
  const period = (i: number): { start: string; end: string; label: string; month?: number; len: number } | undefined => {
    const a = tokens[i];
    const b = tokens[i + 1];
    if (!a) return undefined;
    if (a.t === 'month' && b?.t === 'number' && b.year) return { start: monthStart(b.value, a.month), end: nextMonth(b.value, a.month), label: `${MONTH_NAMES[a.month - 1]} ${b.value}`, len: 2 };
    if (a.t === 'quarter' && b?.t === 'number' && b.year) return quarter(b.value, a.quarter, 2);
    if (a.t === 'number' && a.year && b?.t === 'quarter') return quarter(a.value, b.quarter, 2);
    if (a.t === 'number' && a.year) return { start: `${a.value}-01-01`, end: `${a.value + 1}-01-01`, label: String(a.value), len: 1 };
    if (a.t === 'yearmonth') return { start: monthStart(a.year, a.month), end: nextMonth(a.year, a.month), label: `${MONTH_NAMES[a.month - 1]} ${a.year}`, len: 1 };
    if (a.t === 'date') return { start: a.iso, end: addDay(a.iso), label: a.iso, len: 1 };
    if (a.t === 'month') return { start: '', end: '', label: MONTH_NAMES[a.month - 1]!, month: a.month, len: 1 };
    return undefined;
  };
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!;
    if (t.used) continue;
    const prep = t.t === 'kw' && ['in', 'before', 'after', 'since', 'until', 'from', 'between'].includes(t.kw) ? t.kw : undefined;
    const at = prep ? next(i) : i;
    const p = period(at);
    if (!p) continue;
    if (!prep && tokens[at]!.t === 'number') {
      // a bare year right after a comparator or "top" is a number, not a date
      const prev = tokens[i - 1];
      if (prev && prev.t === 'kw' && (COMPARE[prev.kw] || prev.kw === 'top' || prev.kw === 'bottom')) continue;
    }
    if (p.month !== undefined) {
      if (prep && prep !== 'in') continue;
      d.dates.push({ month: p.month, label: p.label });
      use(i, at);
      continue;
    }
    if (prep === 'between' || prep === 'from') {
      const c = next(at + p.len - 1);
      const qAt = next(c);
      const q = isKw(tokens[c], 'and', 'to', 'until') ? period(qAt) : undefined;
      if (q && q.month === undefined) {
        d.dates.push({ from: p.start, to: q.end, label: `${p.label} to ${q.label}` });
        for (let k = i; k < qAt + q.len; k++) use(k);
        i = qAt + q.len - 1;
        continue;
      }
    }
    if (prep === 'before') d.dates.push({ to: p.start, label: `before ${p.label}` });
    else if (prep === 'after') d.dates.push({ from: p.end, label: `after ${p.label}` });
    else if (prep === 'since' || prep === 'from') d.dates.push({ from: p.start, label: `since ${p.label}` });
    else if (prep === 'until') d.dates.push({ to: p.end, label: `until ${p.label}` });
    else d.dates.push({ from: p.start, to: p.end, label: p.label });
    for (let k = i; k < at + p.len; k++) use(k);
  }
}

function quarter(year: number, q: number, len: number): { start: string; end: string; label: string; len: number } {
  const m = (q - 1) * 3 + 1;
  return { start: monthStart(year, m), end: q === 4 ? `${year + 1}-01-01` : monthStart(year, m + 3), label: `Q${q} ${year}`, len };
}

/**
 * The words of one schema: every phrase that can name a table, a column or a value of a
 * low-cardinality column, in lemma form, with what it can mean. Built from the profiles (so it
 * follows the data), the built-in synonyms and the agent's own `synonyms` option.
 */
import { Catalog, type Relation } from '../catalog/catalog.js';
import { isNumericType, isTemporalType, isTextType, singular, type TableProfile } from '../catalog/profile.js';
import { COLUMN_SYNONYMS, lemma, TABLE_SYNONYMS, VAGUE_PARTS } from './lexicon.js';

export type ColumnRole = 'key' | 'reference' | 'measure' | 'date' | 'category' | 'text' | 'other';

export interface ColumnRef {
  table: string;
  column: string;
  type: string;
  role: ColumnRole;
}

export type Meaning =
  | { kind: 'table'; table: string; strength: number }
  /** a figure per row of `table` built from its child rows: "order value" = sum of the lines' amounts */
  | { kind: 'derived'; table: string; key: string; inner: 'sum'; column: ColumnRef; strength: number }
  | { kind: 'column'; ref: ColumnRef; strength: number }
  | { kind: 'value'; ref: ColumnRef; value: string; strength: number };

export interface Vocabulary {
  tables: ReadonlyMap<string, TableProfile>;
  relations: readonly Relation[];
  phrases: ReadonlyMap<string, Meaning[]>;
  maxPhraseWords: number;
  columns: ReadonlyMap<string, ColumnRef>;
}

export const phraseOf = (text: string): string =>
  text
    .replace(/[_\s]+/g, ' ')
    .trim()
    .split(' ')
    .map(lemma)
    .join(' ');

export function roleOf(p: TableProfile, c: TableProfile['columns'][number], relations: readonly Relation[]): ColumnRole {
  const name = c.name.toLowerCase();
  if (p.key?.length === 1 && p.key[0] === c.name) return 'key';
  if (relations.some((r) => r.from.table === p.name && r.from.column === c.name) || name.endsWith('_id') || name === 'id') return 'reference';
  if (isTemporalType(c.type)) return 'date';
  // numbers that count positions or name things are not quantities: line_number, zip_code
  if (isNumericType(c.type) && /(^|_)(number|no|num|nr|position|rank|index|seq|sequence|code|zip|postal|year)$/.test(name)) return 'other';
  if (isNumericType(c.type)) return 'measure';
  if (c.values || c.type === 'BOOLEAN') return 'category';
  if (isTextType(c.type)) return 'text';
  return 'other';
}

export function buildVocabulary(profiles: readonly TableProfile[], synonyms: Readonly<Record<string, string>> = {}): Vocabulary {
  const relations = Catalog.relations(profiles);
  const phrases = new Map<string, Meaning[]>();
  const columns = new Map<string, ColumnRef>();
  const add = (phrase: string, m: Meaning) => {
    if (!phrase) return;
    const list = phrases.get(phrase) ?? [];
    const same = list.find((x) => sameMeaning(x, m));
    if (same) same.strength = Math.max(same.strength, m.strength);
    else list.push(m);
    phrases.set(phrase, list);
  };
  const tables = new Map(profiles.map((p) => [p.name, p]));

  for (const p of profiles) {
    add(phraseOf(p.name), { kind: 'table', table: p.name, strength: 3 });
    add(phraseOf(singular(p.name)), { kind: 'table', table: p.name, strength: 3 });
    for (const c of p.columns) {
      const ref: ColumnRef = { table: p.name, column: c.name, type: c.type, role: roleOf(p, c, relations) };
      columns.set(`${p.name}.${c.name}`, ref);
      add(phraseOf(c.name), { kind: 'column', ref, strength: 3 });
      // `order_date` is also "date", `unit_price` also "price": weaker, and never for keys.
      if (ref.role !== 'key' && ref.role !== 'reference') {
        const words = c.name.toLowerCase().split(/_+/).filter(Boolean);
        for (const w of words) if (words.length > 1 && !VAGUE_PARTS.has(w)) add(lemma(w), { kind: 'column', ref, strength: 1 });
      }
      for (const v of c.values ?? []) {
        if (v.length < 2 || v.length > 60 || /^\d+([.,]\d+)?$/.test(v)) continue;
        add(phraseOf(v.replace(/[^\p{L}\p{N}\s_-]/gu, ' ')), { kind: 'value', ref, value: v, strength: 2 });
      }
    }
  }
  for (const [word, candidates] of TABLE_SYNONYMS) {
    const table = candidates.find((t) => tables.has(t));
    if (table) add(word, { kind: 'table', table, strength: 2 });
  }
  for (const [word, candidates] of COLUMN_SYNONYMS) {
    for (const p of profiles) {
      const name = candidates.find((n) => p.columns.some((c) => c.name.toLowerCase() === n));
      if (name) add(word, { kind: 'column', ref: columns.get(`${p.name}.${p.columns.find((c) => c.name.toLowerCase() === name)!.name}`)!, strength: 2 });
    }
  }
  for (const [word, target] of Object.entries(synonyms)) {
    const [t, c] = target.split('.');
    if (c === undefined) {
      if (tables.has(t!)) add(phraseOf(word), { kind: 'table', table: t!, strength: 4 });
    } else {
      const ref = columns.get(`${t}.${c}`);
      if (ref) add(phraseOf(word), { kind: 'column', ref, strength: 4 });
    }
  }
  // "order value", "basket value", "order total": a parent's sum of its children's money column
  for (const r of relations) {
    const parent = tables.get(r.to.table);
    const money = [/(^|_)(amount|revenue|sales|total)$/i, /(^|_)(amount|revenue|sales|total)/i]
      .map((re) => [...columns.values()].find((c) => c.table === r.from.table && c.role === 'measure' && re.test(c.column)))
      .find(Boolean);
    if (!parent?.key || !money) continue;
    const words = [lemma(singular(parent.name)), ...[...TABLE_SYNONYMS].filter(([, ts]) => ts[0] === parent.name || ts.find((t) => tables.has(t)) === parent.name).map(([w]) => w)];
    for (const w of words) for (const suffix of ['value', 'total', 'amount', 'revenue']) add(`${w} ${suffix}`, { kind: 'derived', table: parent.name, key: r.to.column, inner: 'sum', column: money, strength: 3 });
    if (words.includes('order')) add('aov', { kind: 'derived', table: parent.name, key: r.to.column, inner: 'sum', column: money, strength: 3 });
  }
  // "UK", "USA": initials of multi-word values
  for (const ref of columns.values()) {
    for (const v of tables.get(ref.table)!.columns.find((c) => c.name === ref.column)?.values ?? []) {
      const words = v.split(/\s+/);
      if (words.length < 2 || words.length > 4 || !words.every((w) => /^\p{Lu}/u.test(w))) continue;
      const initials = words.map((w) => w[0]!.toLowerCase()).join('');
      for (const abbr of initials === 'us' ? ['usa'] : [initials]) if (!phrases.has(abbr)) add(abbr, { kind: 'value', ref, value: v, strength: 1 });
    }
  }
  // "cancellation", "return" for the values "cancelled", "returned": a rate or a count of them
  for (const ref of columns.values()) {
    const profile = tables.get(ref.table)!.columns.find((c) => c.name === ref.column);
    for (const v of profile?.values ?? []) {
      const m = /^([a-z]+?)(l?)ed$/.exec(v);
      if (!m || v.length < 5) continue;
      const stem = m[1]! + m[2]!;
      for (const noun of new Set([stem, `${m[1]}e`, `${stem}ation`, `${m[1]}ation`, `${stem}ion`, `${m[1]}ion`])) if (!phrases.has(noun)) add(noun, { kind: 'value', ref, value: v, strength: 1 });
    }
  }
  let maxPhraseWords = 1;
  for (const k of phrases.keys()) maxPhraseWords = Math.max(maxPhraseWords, k.split(' ').length);
  return { tables, relations, phrases, maxPhraseWords, columns };
}

function sameMeaning(a: Meaning, b: Meaning): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'table' && b.kind === 'table') return a.table === b.table;
  if (a.kind === 'column' && b.kind === 'column') return a.ref.table === b.ref.table && a.ref.column === b.ref.column;
  if (a.kind === 'derived' && b.kind === 'derived') return a.table === b.table && a.column.column === b.column.column;
  if (a.kind === 'value' && b.kind === 'value') return a.ref.table === b.ref.table && a.ref.column === b.ref.column && a.value === b.value;
  return false;
}

/** A column people would read as the name of a row: `name`, `title`, `<table>_name`. */
export function labelColumn(p: TableProfile): string | undefined {
  const names = ['name', 'title', 'label', `${singular(p.name)}_name`, `${p.name}_name`, 'full_name', 'display_name'];
  return p.columns.find((c) => names.includes(c.name.toLowerCase()) && isTextType(c.type))?.name;
}

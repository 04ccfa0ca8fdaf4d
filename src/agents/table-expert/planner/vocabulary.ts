/**
 * The words of one schema: every phrase that can name a table, a column or a value of a
 * low-cardinality column, in lemma form, with what it can mean. Built from the profiles (so it
 * follows the data), the built-in synonyms and the agent's own `synonyms` option.
 */
import { Catalog, type Relation } from '../catalog/catalog.js';
import { isNumericType, isTemporalType, isTextType, singular, type TableProfile } from '../catalog/profile.js';
import { COLUMN_SYNONYMS, FILLER, KEYWORDS, lemma, TABLE_SYNONYMS, VAGUE_PARTS } from './lexicon.js';
import { nameWords, stem } from './names.js';

export type ColumnRole = 'key' | 'reference' | 'measure' | 'date' | 'category' | 'text' | 'other';

export interface ColumnRef {
  table: string;
  column: string;
  type: string;
  role: ColumnRole;
  /** the id column beside a name column (`Customer Name` → `Customer ID`): what counting the entity counts */
  identity?: string;
}

export type Meaning =
  | { kind: 'table'; table: string; strength: number }
  /** a figure per row of `table` built from its child rows: "order value" = sum of the lines' amounts */
  | { kind: 'derived'; table: string; key: string; inner: 'sum'; column: ColumnRef; strength: number }
  | { kind: 'column'; ref: ColumnRef; strength: number }
  /** a named measure of the semantic layer: its SQL, an aggregate over `table`'s columns */
  | { kind: 'formula'; table: string; name: string; sql: string; strength: number }
  /** `exact`: a code such as a ticker (`ON`, `ALL`) matches only when written as in the data */
  | { kind: 'value'; ref: ColumnRef; value: string; strength: number; exact?: boolean };

export interface Vocabulary {
  tables: ReadonlyMap<string, TableProfile>;
  relations: readonly Relation[];
  phrases: ReadonlyMap<string, Meaning[]>;
  maxPhraseWords: number;
  columns: ReadonlyMap<string, ColumnRef>;
  /** word stems of column names and values (populous → population, managers → management) */
  stems: ReadonlyMap<string, Meaning[]>;
  /** `table.column` → the unit its name carries (`Mass (g)` → g) */
  units: ReadonlyMap<string, string>;
  /** `table.column` of the semantic layer's default time columns */
  timeColumns: ReadonlySet<string>;
}

export const phraseOf = (text: string): string =>
  text
    .replace(/[_\s]+/g, ' ')
    .trim()
    .split(' ')
    .map(lemma)
    .join(' ');

/** A column or table name as the words a question would use: `Order Date`, `orderDate` → "order date". */
export const namePhrase = (name: string): string => nameWords(name).words.map(lemma).join(' ');

export function roleOf(p: TableProfile, c: TableProfile['columns'][number], relations: readonly Relation[]): ColumnRole {
  const name = nameWords(c.name).words.join('_');
  if (p.key?.length === 1 && p.key[0] === c.name) return 'key';
  if (relations.some((r) => r.from.table === p.name && r.from.column === c.name) || name.endsWith('_id') || name === 'id') return 'reference';
  if (isTemporalType(c.type)) return 'date';
  // whole numbers of years, found when the file was loaded: "after 1945", "in 2014" filter them
  if (p.inferred?.some((i) => i.column === c.name && i.as === 'year')) return 'date';
  // numbers that count positions or name things are not quantities: line_number, zip_code
  if (isNumericType(c.type) && /(^|_)(number|no|num|nr|position|rank|index|seq|sequence|code|zip|postal|year)$/.test(name)) return 'other';
  if (isNumericType(c.type)) return 'measure';
  if (c.values || c.type === 'BOOLEAN') return 'category';
  if (isTextType(c.type)) return 'text';
  return 'other';
}

/** The semantic layer's parts the planner uses (planner/semantic.ts checks them against the schema). */
export interface VocabularyExtras {
  units?: Readonly<Record<string, string>>;
  values?: ReadonlyArray<{ alias: string; table: string; column: string; value: string }>;
  timeColumns?: readonly string[];
  measures?: ReadonlyArray<{ name: string; table: string; sql: string }>;
}

export function buildVocabulary(profiles: readonly TableProfile[], synonyms: Readonly<Record<string, string>> = {}, extras: VocabularyExtras = {}): Vocabulary {
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
  const stems = new Map<string, Meaning[]>();
  const units = new Map<string, string>();
  const addStem = (word: string, m: Meaning) => {
    const k = stem(word);
    if (k.length < 3) return;
    const list = stems.get(k) ?? [];
    if (!list.some((x) => sameMeaning(x, m))) list.push(m);
    stems.set(k, list);
  };
  const plain = (w: string) => !VAGUE_PARTS.has(w) && !KEYWORDS.has(w) && !FILLER.has(w) && !/^\d+$/.test(w);
  /**
   * A column's name as words: the whole ("order date", "market capitalization"), its runs of two
   * or more words ("dividend yield", "price change"), its single words ("date", "price") and
   * short forms of long words ("market cap", "pop", "temp"), weaker the less of the name they say;
   * never parts of keys and ids.
   */
  const addNameWords = (name: string, ref: ColumnRef) => {
    const { words, unit } = nameWords(name);
    if (unit) units.set(`${ref.table}.${ref.column}`, unit);
    if (!words.length) return;
    const lemmas = words.map(lemma);
    add(lemmas.join(' '), { kind: 'column', ref, strength: 3 });
    if (ref.role === 'key' || ref.role === 'reference') return;
    for (let len = words.length - 1; len >= 1; len--) {
      for (let i = 0; i + len <= words.length; i++) {
        const run = lemmas.slice(i, i + len);
        if (!run.every(plain)) continue;
        const phrase = run.join(' ');
        if (len === 1 && phrases.get(phrase)?.some((m) => m.strength >= 2)) continue;
        add(phrase, { kind: 'column', ref, strength: len >= 2 ? 2 : 1 });
      }
    }
    for (const w of words) if (plain(w) && w.length >= 4) addStem(w, { kind: 'column', ref, strength: 1 });
    // initials: "pe ratio" for `Price to earnings ratio`, "eps" for `Earnings per share`
    const content = words.filter((w) => !['to', 'of', 'and', 'per', 'the', 'a', 'in', 'by'].includes(w) && !/^\d/.test(w));
    if (content.length >= 3) {
      const initials = content.map((w) => w[0]).join('');
      const lead = content
        .slice(0, -1)
        .map((w) => w[0])
        .join('');
      for (const phrase of [initials, `${lead} ${lemma(content[content.length - 1]!)}`]) if (!KEYWORDS.has(phrase) && !FILLER.has(phrase) && !phrases.has(phrase)) add(phrase, { kind: 'column', ref, strength: 2 });
    }
    // short forms: "cap" for capitalization, "pop" for population, "temp" for temperature
    lemmas.forEach((w, i) => {
      if (w.length < 7 || !plain(w)) return;
      for (const n of [3, 4]) {
        const short = w.slice(0, n);
        if (KEYWORDS.has(short) || FILLER.has(short) || phrases.has(short)) continue;
        const phrase = [...lemmas.slice(0, i), short, ...lemmas.slice(i + 1)].join(' ');
        if (!phrases.has(phrase)) add(phrase, { kind: 'column', ref, strength: 1 });
        if (words.length > 1 && !phrases.has(short)) add(short, { kind: 'column', ref, strength: 1 });
      }
    });
  };
  /**
   * Entities named by id and name columns in a flat table (`Customer ID`, `Customer Name`):
   * "customer" is the name column, counted by the id.
   */
  const entityWords = (p: TableProfile) => {
    for (const c of p.columns) {
      const w = nameWords(c.name).words;
      if (w.length < 2 || w[w.length - 1] !== 'id') continue;
      const entity = w.slice(0, -1).map(lemma).join(' ');
      if (tables.has(entity) || [...tables.keys()].some((t) => phraseOf(singular(t)) === entity)) continue;
      const label = p.columns.find((x) => isTextType(x.type) && nameWords(x.name).words.join(' ') === `${w.slice(0, -1).join(' ')} name`);
      const idRef = columns.get(`${p.name}.${c.name}`)!;
      const ref = label ? { ...columns.get(`${p.name}.${label.name}`)!, identity: c.name } : idRef;
      add(entity, { kind: 'column', ref, strength: 2 });
    }
  };
  /**
   * A table holding one fact per key (`country_by_life_expectancy`: country, expectancy): the
   * words of its name that are not the key's name the fact's column ("life expectancy").
   */
  const factWords = (p: TableProfile) => {
    const key = p.key?.length === 1 ? p.key[0]! : undefined;
    const facts = p.columns.filter((c) => c.name !== key);
    if (!key || facts.length !== 1) return;
    const keyWords = new Set(nameWords(key).words);
    const words = nameWords(p.name)
      .words.filter((w) => !keyWords.has(w) && !['by', 'of', 'per', 'and'].includes(w))
      .map(lemma);
    const ref = columns.get(`${p.name}.${facts[0]!.name}`)!;
    for (let len = words.length; len >= 1; len--) {
      for (let i = 0; i + len <= words.length; i++) {
        const run = words.slice(i, i + len);
        if (run.every(plain)) add(run.join(' '), { kind: 'column', ref, strength: len === words.length ? 3 : 2 });
      }
    }
  };

  for (const p of profiles) {
    add(phraseOf(p.name), { kind: 'table', table: p.name, strength: 3 });
    add(phraseOf(singular(p.name)), { kind: 'table', table: p.name, strength: 3 });
    for (const c of p.columns) {
      const ref: ColumnRef = { table: p.name, column: c.name, type: c.type, role: roleOf(p, c, relations) };
      columns.set(`${p.name}.${c.name}`, ref);
      add(phraseOf(c.name), { kind: 'column', ref, strength: 3 });
      addNameWords(c.name, ref);
      for (const v of c.values ?? []) {
        if (v.length < 2 || v.length > 60 || /^\d+([.,]\d+)?$/.test(v)) continue;
        const phrase = phraseOf(v.replace(/[^\p{L}\p{N}\s_-]/gu, ' '));
        // a code that is also an English word ("is", "it", "no" as language codes) is not that word
        if (v.length <= 3 && (KEYWORDS.has(phrase) || FILLER.has(phrase))) continue;
        add(phrase, { kind: 'value', ref, value: v, strength: 2, ...(v.length <= 3 ? { exact: true } : {}) });
        if (!v.includes(' ')) addStem(v, { kind: 'value', ref, value: v, strength: 1 });
      }
      // names, countries, symbols: known for lookups, weaker than a category's values
      for (const v of c.lookup ?? []) {
        if (v.length < 2 || /^\d+([.,]\d+)?$/.test(v)) continue;
        const code = /^[\p{Lu}\d.-]{1,5}$/u.test(v);
        const phrase = phraseOf(v.replace(/[^\p{L}\p{N}\s_-]/gu, ' '));
        if (!code && (KEYWORDS.has(phrase) || FILLER.has(phrase))) continue;
        add(phrase, { kind: 'value', ref, value: v, strength: 1, ...(code ? { exact: true } : {}) });
      }
    }
    entityWords(p);
    factWords(p);
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
    // `table.column`: the column's name may hold dots, spaces and capitals (`superstore.Order Date`)
    const dot = target.indexOf('.');
    const [t, c] = dot < 0 ? [target, undefined] : [target.slice(0, dot), target.slice(dot + 1)];
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
  // "Tesla" for `Tesla, Inc.`, "NVIDIA" for `NVIDIA Corporation`: a first word that names one
  // value of a lookup column, when no other phrase has the word
  for (const p of profiles) {
    for (const c of p.columns) {
      const firsts = new Map<string, string | null>();
      for (const v of c.lookup ?? []) {
        const first = /^(\p{L}[\p{L}\p{N}&-]{3,})[\s,]/u.exec(v)?.[1]?.toLowerCase();
        if (first) firsts.set(first, firsts.has(first) ? null : v);
      }
      const ref = columns.get(`${p.name}.${c.name}`)!;
      for (const [first, v] of firsts) if (v && !phrases.has(lemma(first)) && !KEYWORDS.has(first) && !FILLER.has(first)) add(lemma(first), { kind: 'value', ref, value: v, strength: 1 });
    }
  }
  // a yes/no column is also a condition: "clients with a housing loan", "in default"
  for (const ref of columns.values()) {
    if (ref.type !== 'BOOLEAN') continue;
    const phrase = namePhrase(ref.column);
    if (!phrases.get(phrase)?.some((m) => m.kind === 'value')) add(phrase, { kind: 'value', ref, value: 'true', strength: 2 });
  }
  for (const [key, unit] of Object.entries(extras.units ?? {})) units.set(key, unit);
  for (const m of extras.measures ?? []) add(phraseOf(m.name), { kind: 'formula', table: m.table, name: m.name, sql: m.sql, strength: 4 });
  for (const v of extras.values ?? []) {
    const ref = columns.get(`${v.table}.${v.column}`);
    if (ref) add(phraseOf(v.alias), { kind: 'value', ref, value: v.value, strength: 4 });
  }
  // "one row per client": the rows' own noun names the table
  for (const p of profiles) {
    const m = /\b(?:one|a|each|every) (?:row|record|line|entry) (?:per|for each|for every|for|is an?|describes an?) ([a-z]+)/i.exec(p.description ?? '');
    const noun = m ? lemma(m[1]!) : undefined;
    if (noun && !phrases.get(noun)?.some((x) => x.strength >= 2)) add(noun, { kind: 'table', table: p.name, strength: 2 });
  }
  // the same value in a table's name column and another column ("Australia" as Name and Native): the name
  for (const [phrase, list] of phrases) {
    const kept = list.filter((m) => {
      if (m.kind !== 'value') return true;
      const label = labelColumn(tables.get(m.ref.table)!) ?? tables.get(m.ref.table)!.key?.[0];
      // only between name-like columns (both looked up); a category ("Antarctica" as a continent) stays a meaning
      return m.ref.column === label || m.strength > 1 || !list.some((o) => o.kind === 'value' && o.ref.table === m.ref.table && o.ref.column === label && o.value === m.value);
    });
    if (kept.length !== list.length) phrases.set(phrase, kept);
  }
  let maxPhraseWords = 1;
  for (const k of phrases.keys()) maxPhraseWords = Math.max(maxPhraseWords, k.split(' ').length);
  return { tables, relations, phrases, maxPhraseWords, columns, stems, units, timeColumns: new Set(extras.timeColumns ?? []) };
}

function sameMeaning(a: Meaning, b: Meaning): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'table' && b.kind === 'table') return a.table === b.table;
  if (a.kind === 'column' && b.kind === 'column') return a.ref.table === b.ref.table && a.ref.column === b.ref.column && a.ref.identity === b.ref.identity;
  if (a.kind === 'derived' && b.kind === 'derived') return a.table === b.table && a.column.column === b.column.column;
  if (a.kind === 'value' && b.kind === 'value') return a.ref.table === b.ref.table && a.ref.column === b.ref.column && a.value === b.value;
  return false;
}

/** A column people would read as the name of a row: `name`, `title`, `<table>_name`. */
export function labelColumn(p: TableProfile): string | undefined {
  const names = ['name', 'title', 'label', `${singular(p.name)}_name`, `${p.name}_name`, 'full_name', 'display_name'];
  return p.columns.find((c) => names.includes(nameWords(c.name).words.join('_')) && isTextType(c.type))?.name;
}

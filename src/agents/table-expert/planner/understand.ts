/**
 * A word the schema's phrases do not hold, understood from general English before it is called
 * unknown: its stem (populous → population, managers → management), a unit (kg → the weight
 * column, degrees → the temperature column), a degree adjective (hottest → the maximum of the
 * temperature column, via WordNet's attribute), or a noun it pertains to or derives from (African
 * → Africa, American → United States, rainy → rain). Only meanings the data has are returned; a
 * word with none stays unknown and the planner declines or asks as before.
 */
import { lemma } from './lexicon.js';
import { dimensionOfUnit, LOW_END, nameWords, stem } from './names.js';
import type { QToken } from './token-types.js';
import type { Meaning, Vocabulary } from './vocabulary.js';
import { baseOfAdjective, senseOf } from './wordnet.js';

const columnMeanings = (ms: readonly Meaning[] | undefined) => (ms ?? []).filter((m) => m.kind === 'column');

/** Columns an attribute noun names: by phrase, by stem, or by the unit the column carries. */
function columnsForNoun(noun: string, vocab: Vocabulary): Meaning[] {
  const out: Meaning[] = [...columnMeanings(vocab.phrases.get(lemma(noun)))];
  if (!out.length) out.push(...columnMeanings(vocab.stems.get(stem(noun))));
  for (const [key, unit] of vocab.units) {
    if (!dimensionOfUnit(unit)?.includes(noun)) continue;
    const ref = vocab.columns.get(key);
    if (ref && !out.some((m) => m.kind === 'column' && m.ref === ref)) out.push({ kind: 'column', ref, strength: 1 });
  }
  return out.map((m) => ({ ...m, strength: 1 }));
}

const schema = (text: string, meanings: Meaning[]): QToken => ({ t: 'schema', meanings, plural: false, text, used: false });

export function understandWord(raw: string, vocab: Vocabulary): QToken[] {
  const unknown: QToken[] = [{ t: 'unknown', text: raw, used: false }];
  if (!/^\p{L}[\p{L}'-]*$/u.test(raw) || raw.length < 3) {
    const dim = dimensionOfUnit(raw);
    const cols = dim ? dim.flatMap((n) => columnsForNoun(n, vocab)) : [];
    return cols.length ? [schema(raw, cols)] : unknown;
  }
  const word = raw.toLowerCase().replace(/'s$/, '');
  // a unit: "in kg", "25 degrees", "pounds"
  const dim = dimensionOfUnit(word);
  if (dim) {
    const cols = dim.flatMap((n) => columnsForNoun(n, vocab));
    if (cols.length) return [schema(raw, dedupe(cols))];
  }
  // the data's own words by stem
  const stemmed = vocab.stems.get(stem(word));
  if (stemmed?.length && word.length >= 4)
    return [
      schema(
        raw,
        stemmed.map((m) => ({ ...m, strength: 1 })),
      ),
    ];
  // hottest, heaviest, youngest: the extreme of the attribute the adjective measures
  const degree = baseOfAdjective(word);
  if (degree) {
    const cols = dedupe(senseOf(degree.base).attributes.flatMap((n) => columnsForNoun(n, vocab)));
    if (cols.length) {
      const low = LOW_END.has(degree.base);
      if (degree.degree === 'superlative') return [{ t: 'kw', kw: low ? 'min' : 'max', text: raw, used: false }, schema(raw, cols)];
      return [schema(raw, cols), { t: 'kw', kw: low ? 'lt' : 'gt', text: raw, used: false }];
    }
  }
  const sense = senseOf(word);
  const attr = dedupe(sense.attributes.flatMap((n) => columnsForNoun(n, vocab)));
  if (attr.length) return [schema(raw, attr)];
  // African → Africa, American → United States, rainy → rain: values and columns the data has
  for (const noun of sense.related) {
    const phrase = nameWords(noun).words.map(lemma).join(' ');
    const hit = vocab.phrases.get(phrase);
    if (hit?.length)
      return [
        schema(
          raw,
          hit.map((m) => ({ ...m, strength: 1 })),
        ),
      ];
  }
  // sunny → sun, foggy → fog, snowy → snow: the noun an "-y" adjective is made from, when WordNet does not link them
  const base = /^(\p{L}{2,})(\p{L})\2y$/u.exec(word) ?? /^(\p{L}{3,})y$/u.exec(word);
  if (base) {
    const noun = base[2] ? `${base[1]}${base[2]}` : base[1]!;
    const hit = vocab.phrases.get(lemma(noun))?.filter((m) => m.kind === 'value');
    if (hit?.length)
      return [
        schema(
          raw,
          hit.map((m) => ({ ...m, strength: 1 })),
        ),
      ];
  }
  return unknown;
}

function dedupe(ms: Meaning[]): Meaning[] {
  return ms.filter((m, i) => ms.findIndex((x) => x.kind === 'column' && m.kind === 'column' && x.ref.table === m.ref.table && x.ref.column === m.ref.column) === i);
}

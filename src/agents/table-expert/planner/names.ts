/**
 * Column and table names as words: `order_date`, `meltingPoint`, `Order Date`, `Mass (g)`,
 * `Dividend yield %, Trailing 12 months` all split into plain lowercase words, with a unit in
 * parentheses kept aside. And the units people write in questions, by what they measure, so "kg"
 * or "pounds" finds a weight column and "degrees" a temperature.
 */
import { stemmer } from 'stemmer';

export interface NameWords {
  words: string[];
  /** the unit in parentheses or after the last comma: `(g)`, `(mm)`, `(USD)` */
  unit?: string;
}

export function nameWords(name: string): NameWords {
  const unitMatch = /\(([^)]{1,12})\)\s*$/.exec(name);
  const bare = unitMatch ? name.slice(0, unitMatch.index) : name;
  const words = bare
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  return { words, ...(unitMatch ? { unit: unitMatch[1]!.trim().toLowerCase() } : {}) };
}

/** A word's stem (Porter): populous and population → popul, managers and management → manag. */
export const stem = (word: string): string => stemmer(word.toLowerCase());

/** What a unit measures, by the attribute nouns WordNet uses (temperature, weight, length …). */
// biome-ignore format: a table reads best in rows
const UNIT_DIMENSIONS: ReadonlyArray<[readonly string[], readonly string[]]> = [
  [['degree', 'degrees', '°c', '°f', 'c', 'f', 'celsius', 'fahrenheit', 'kelvin'], ['temperature', 'temp']],
  [['kg', 'kgs', 'kilogram', 'kilograms', 'g', 'gram', 'grams', 'lb', 'lbs', 'pound', 'pounds', 'ton', 'tons', 'tonne', 'tonnes', 'oz', 'ounce', 'ounces'], ['weight', 'mass']],
  [['mm', 'cm', 'm', 'km', 'millimeter', 'millimeters', 'millimetre', 'millimetres', 'centimeter', 'centimeters', 'meter', 'meters', 'metre', 'metres', 'kilometer', 'kilometers', 'inch', 'inches', 'in', 'ft', 'foot', 'feet', 'mile', 'miles'], ['length', 'height', 'distance', 'depth', 'width', 'precipitation', 'elevation']],
  [['km2', 'km²', 'sq', 'square', 'hectare', 'hectares', 'acre', 'acres'], ['area']],
  [['mph', 'kph', 'km/h', 'knots'], ['speed', 'wind']],
  [['usd', '$', 'dollar', 'dollars', 'eur', '€', 'euro', 'euros', 'gbp', '£'], ['price', 'cost', 'amount', 'revenue', 'sales', 'income', 'salary', 'value', 'capitalization']],
  [['second', 'seconds', 'sec', 'secs', 'minute', 'minutes', 'min', 'mins', 'hour', 'hours', 'hrs'], ['duration', 'time', 'minutes', 'seconds', 'hours']],
];

/** Attribute nouns for a unit word, or undefined when it is not a unit. */
export function dimensionOfUnit(word: string): readonly string[] | undefined {
  const w = word.toLowerCase();
  return UNIT_DIMENSIONS.find(([units]) => units.includes(w))?.[1];
}

/**
 * Adjectives at the low end of the scale they measure: "the coldest" is the minimum temperature,
 * "the hottest" the maximum. English marks the high end (one asks "how tall", "how old"), so the
 * low-end words are the short list.
 */
export const LOW_END = new Set([
  'cold',
  'cool',
  'short',
  'light',
  'young',
  'small',
  'little',
  'slow',
  'low',
  'cheap',
  'poor',
  'thin',
  'narrow',
  'shallow',
  'early',
  'dry',
  'few',
  'tiny',
  'weak',
  'near',
  'close',
  'quiet',
  'sparse',
]);

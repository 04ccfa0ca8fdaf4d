/**
 * Ordinary analyst language rewritten into the planner's plainer forms before the words are
 * matched: chat shorthand ("tix", "# of", "gimme"), ordinal periods ("the third quarter of 2024",
 * "the first half of 2024"), month ranges ("between March and May 2024"), counts without "top"
 * ("the 4 largest customers", "which 7 regions"), comparisons ("online vs store") and casual verbs
 * that carry no meaning for the query ("came in", "brings in"). Each rewrite keeps the meaning;
 * none guesses one.
 */
const ORDINAL: Record<string, number> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: 4, final: 4 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`;
const monthNumber = (m: string): number => {
  const i = MONTHS.findIndex((x) => x.startsWith(m.toLowerCase().slice(0, 3)));
  return i + 1;
};
const pad = (n: number) => String(n).padStart(2, '0');

type Rule = [RegExp, string | ((...m: string[]) => string)];

const RULES: Rule[] = [
  // shorthand
  [/#\s*(?=[a-z])/gi, 'number of '],
  [/\btix\b/gi, 'tickets'],
  [/\bppl\b/gi, 'people'],
  [/\bgimme\b/gi, 'show'],
  [/\br\b/gi, 'are'],
  [/\bu\b/gi, 'you'],
  [/\brev\b/gi, 'revenue'],
  [/\b(pls|plz|please|thanks|thx|for me)\b/gi, ' '],
  [/\b(\w+)-wise\b/gi, '$1'],
  [/\b(didn't|did not|haven't|have not|hasn't|has not|don't|do not|doesn't|does not)\b/gi, 'never'],
  // money verbs with no measure named: "how much did we make" is revenue
  [/\bhow much (did|do|does|have) (we|they|it|you) (make|earn|bring in|sell|take in)\b/gi, 'how much revenue did $2'],
  [/\bhow much did (\w+) (make|earn|bring in)\b/gi, 'how much revenue did $1'],
  // periods
  [/\b(?:the )?(first|1st|second|2nd|third|3rd|fourth|4th|last|final) quarter (?:of |in )?(\d{4})\b/gi, (_m, o, y) => `Q${ORDINAL[o!.toLowerCase()]} ${y}`],
  [/\b(?:the )?(first|1st|second|2nd|last) half (?:of |in )?(\d{4})\b/gi, (_m, o, y) => (ORDINAL[o!.toLowerCase()] === 1 ? `between ${y}-01-01 and ${y}-06-30` : `between ${y}-07-01 and ${y}-12-31`)],
  [/\bh([12]) (\d{4})\b/gi, (_m, h, y) => (h === '1' ? `between ${y}-01-01 and ${y}-06-30` : `between ${y}-07-01 and ${y}-12-31`)],
  [new RegExp(`\\b(between|from) ${MONTH_RE} (and|to|through|until) ${MONTH_RE},? (\\d{4})\\b`, 'gi'), (_m, _p, a, _and, b, y) => `between ${y}-${pad(monthNumber(a!))} and ${y}-${pad(monthNumber(b!))}`],
  [/\bq([1-4])\s*(?:-|–|to|through|until)\s*q([1-4]),? (\d{4})\b/gi, (_m, a, b, y) => `between ${y}-${pad((Number(a) - 1) * 3 + 1)} and ${y}-${pad(Number(b) * 3)}`],
  [/\b(q[1-4])[ -]?'?(\d{2})\b(?!\d)/gi, (_m, q, y) => `${q} 20${y}`],
  // rankings without "top"
  [/\b(?:the )?(\d+) (largest|biggest|top|best|highest|leading|most important)\b/gi, 'top $1'],
  [/\b(?:the )?(\d+) (smallest|lowest|worst|least)\b/gi, 'bottom $1'],
  [/\b(which|what) (\d+)\b/gi, 'top $2'],
  [/\bbusiest\b/gi, 'busy most'],
  [/\bslowest\b/gi, 'highest'],
  [/\bfastest\b/gi, 'lowest'],
  // "…, highest first" at the end: the order the planner gives groups anyway
  [/\b(highest|largest|biggest|most) first\s*(?=[,.;?!]|$)/gi, ' '],
  [/\bbreaks? (?:it )?(?:out|down)\b/gi, ' '],
  [/\bvia\b/gi, 'from'],
  [/(\d),(?=\s|$)/g, '$1 '],
  [/\b(highest|most)[- ]priced\b/gi, 'most expensive'],
  [/\b(lowest|least)[- ]priced\b/gi, 'cheapest'],
  [/\bbest[- ]selling\b/gi, 'top'],
  // comparisons between two named things
  [/\b(vs\.?|versus|compared (?:with|to)|against)\b/gi, ' compare '],
  [/\bcompare (?:the )?(revenue|sales|orders|tickets)? ?(between|for)\b/gi, 'compare $1 '],
  // casual verbs that name no column or table
  [/\b(?:came|come|comes|coming)(?: in)?(?: (?:through|via|from|by|on))?\b/gi, 'from'],
  [/\b(brings?|bringing|brought) in\b/gi, ' '],
  [/\b(got|gets|get) (cancelled|returned|solved|closed)\b/gi, '$2'],
  [/\bhow many (\w+(?: \w+)?) (?:does|do|did) (?:an?|the average|one) (\w+) (?:have|has|handle|get|place|contain|hold|include)(?: on average)?\b/gi, 'average number of $1 per $2'],
  [/\b(average|avg|mean|median) (?:number of )?(?:items|units) (per|in an?|in each) (order|basket)\b/gi, '$1 units per $3'],
  [/\bon average\b/gi, 'average'],
  [/\bon weekends?\b/gi, 'weekend'],
];

export function normalizeQuestion(question: string): string {
  let s = question.replace(/[‘’]/g, "'").replace(/[“”]/g, '"');
  for (const [re, to] of RULES) s = s.replace(re, to as string);
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * How deeply a JSON text nests, counted without parsing it. JSON.parse takes any depth, but
 * recursive code after it (JSON.stringify, schema validation, translation between versions) runs
 * out of stack somewhere past a few thousand levels, which would surface as a 500. Faces refuse
 * such bodies up front with a 400 in their own shape; no real request nests anywhere near this.
 */
export const MAX_JSON_DEPTH = 256;

/** True when the text opens more than `max` arrays/objects inside each other (strings skipped). */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting deeper than `max` takes more than `max` characters: most bodies need no scan at all.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

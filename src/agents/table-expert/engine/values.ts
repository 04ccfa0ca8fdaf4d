/** DuckDB result values → plain JSON for DataParts: numbers stay numbers where JSON can hold them. */
import type { JsonValue } from '../../../protocol/a2a/types.js';

/** DuckDB type ids (DuckDBTypeId) whose JSON form is a string but whose meaning is a number. */
const NUMERIC_AS_TEXT = new Set([5, 9, 16, 19, 32, 35]);

export function toJsonValue(v: unknown, typeId: number, maxChars: number): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    if (NUMERIC_AS_TEXT.has(typeId)) {
      const n = Number(v);
      if (Number.isFinite(n) && (Number.isSafeInteger(n) || !/^-?\d+$/.test(v))) return n;
      return v;
    }
    return v.length > maxChars ? `${v.slice(0, maxChars)}…` : v;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => toJsonValue(x, -1, maxChars));
  if (typeof v === 'object') {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toJsonValue(x, -1, maxChars);
    return out;
  }
  return String(v);
}

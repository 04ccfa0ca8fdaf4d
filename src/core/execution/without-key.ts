/** A copy of `o` without `key`, built without `delete` (which turns objects into slow dictionary-mode ones). */
export function withoutKey<T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> {
  if (!(key in o)) return o;
  const out = {} as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== key) out[k] = (o as Record<string, unknown>)[k];
  return out as Omit<T, K>;
}

/**
 * `{ ...base, ...fields }` that V8 can keep fast: a shallow copy of `base` with `fields` set, the
 * keys in the same order, every value defined as an own property (an own `__proto__` key of a
 * parsed document stays a key, as with a spread; `Object.assign` would set the prototype).
 *
 * Why not the spread itself (ADR 0046): on Node 20 (V8 11.3) an object literal that *starts* with a
 * spread is a clone whose hidden class has no parent, and adding a field to it (`{ ...ctx, agent }`,
 * `{ ...message, taskId }`) makes a new hidden class for every object. Every later read of such an
 * object misses V8's property caches: on the blocking echo's path, ~16 cache misses, ~22 clone
 * slow paths and two fresh hidden classes per request. Starting the literal with an empty object
 * makes it a copy into an ordinary object, whose hidden classes are shared.
 */
export function copyWith<T extends object, F extends object>(base: T, fields: F): Omit<T, keyof F> & F {
  return { ...{}, ...base, ...fields };
}

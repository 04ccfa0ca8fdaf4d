/**
 * Declared types as JSON values. An interface (Task, a table profile, a proto message) is not
 * assignable to `JsonObject`: it has no index signature, and its optional fields add `undefined`,
 * which `JSON.stringify` drops. `Jsonable<T>` checks the shape instead, field by field, so a value
 * that holds a function, a bigint, a Date or a class instance still fails to compile.
 */
import type { JsonObject, JsonValue } from './types.js';

export type Jsonable<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends (...args: never[]) => unknown
    ? never
    : T extends readonly (infer U)[]
      ? readonly Jsonable<U>[]
      : T extends object
        ? { [K in keyof T]: Jsonable<T[K]> }
        : never;

/** `value`, checked to be JSON-shaped, as a `JsonValue`. */
export function toJsonValue<T>(value: T & Jsonable<T>): JsonValue {
  // Jsonable checked the shape; TypeScript cannot relate a generic T to JsonValue by itself
  return value as unknown as JsonValue;
}

/** `value`, an object checked to be JSON-shaped, as a `JsonObject`. */
export function toJsonObject<T extends object>(value: T & Jsonable<T>): JsonObject {
  // as in toJsonValue
  return value as unknown as JsonObject;
}

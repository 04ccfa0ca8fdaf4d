/**
 * Validation primitives for v0.3 payloads. Errors are InvalidParams (-32602 in both versions) and
 * name the offending field in v0.3 terms (`message.parts[0].file.bytes`), so a v0.3 client can act
 * on them.
 */
import { invalidParams } from '../a2a/errors.js';
import { MAX_JSON_DEPTH, isObject } from '../a2a/validate.js';
import type { JsonObject } from '../a2a/types.js';

export type Obj = Record<string, unknown>;
export { isObject };

export function obj(v: unknown, field: string): Obj {
  if (!isObject(v)) throw invalidParams(field, 'must be an object');
  return v;
}

export function optObj(v: unknown, field: string): Obj | undefined {
  return v === undefined || v === null ? undefined : obj(v, field);
}

export function str(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.length === 0) throw invalidParams(field, 'is required and must be a non-empty string');
  return v;
}

export function optStr(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalidParams(field, 'must be a string');
  return v;
}

export function optBool(v: unknown, field: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalidParams(field, 'must be a boolean');
  return v;
}

export function optNonNegativeInt(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParams(field, 'must be an integer');
  if (v < 0) throw invalidParams(field, 'must not be negative');
  return v;
}

export function optStrArray(v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidParams(field, 'must be an array of strings');
  return v as string[];
}

/** Any JSON object (metadata, data parts), refused past MAX_JSON_DEPTH like v1.0 input is. */
export function optJsonObject(v: unknown, field: string): JsonObject | undefined {
  const o = optObj(v, field);
  if (o) checkDepth(o, field);
  return o as JsonObject | undefined;
}

export function checkDepth(v: unknown, field: string): void {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > MAX_JSON_DEPTH) throw invalidParams(field, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
}

/** `kind` must be the given constant when present; v0.3 requires it, but SDKs in the wild omit it on input. */
export function expectKind(o: Obj, kind: string, field: string): void {
  if (o.kind !== undefined && o.kind !== kind) throw invalidParams(`${field}.kind`, `must be '${kind}'`);
}

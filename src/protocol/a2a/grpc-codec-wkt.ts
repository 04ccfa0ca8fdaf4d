/**
 * The well-known types A2A uses, between their proto-loader object form and ProtoJSON:
 * google.protobuf.Struct/Value/ListValue ⇄ JSON, Timestamp ⇄ RFC 3339, bytes ⇄ base64, and the
 * proto3 scalar rules (a default value is indistinguishable from an absent one).
 *
 * Decoders read what a peer sent and throw A2AError InvalidParams naming the field; encoders write
 * what we produce and throw TypeError, since bad output is our bug, not the client's.
 */
import { invalidParams } from './errors.js';
import type { JsonObject, JsonValue } from './types.js';
import type { WireBytes, WireEnum, WireListValue, WireStruct, WireTimestamp, WireValue } from './grpc-codec-wire.js';

/** Deeper Struct nesting than this is refused: recursion on peer input must be bounded. */
export const MAX_STRUCT_DEPTH = 64;

// ---- proto3 scalars ----

/** Drops keys whose value is undefined, so decoded objects carry exactly the fields that are set. */
export function prune<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) {
    if (obj[key] === undefined) delete obj[key];
  }
  return obj;
}

/** A non-`optional` proto3 string: "" means unset. */
export const optString = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);
/** A non-`optional` proto3 bool: false means unset. */
export const optTrue = (v: boolean | undefined): true | undefined => (v === true ? true : undefined);
/** A non-`optional` proto3 number: 0 means unset. */
export const optNonZero = (v: number | undefined): number | undefined => (v === undefined || v === 0 ? undefined : v);
/** A repeated field: empty means unset. */
export const optList = <T>(v: readonly T[] | undefined): T[] | undefined => (v && v.length > 0 ? [...v] : undefined);

/** A REQUIRED string on peer input. */
export function requiredString(v: string | undefined, field: string): string {
  if (v === undefined || v === '') throw invalidParams(field, 'is required');
  return v;
}

/** A REQUIRED message on peer input. */
export function requiredMessage<T>(v: T | undefined | null, field: string): T {
  if (v === undefined || v === null) throw invalidParams(field, 'is required');
  return v;
}

/** Looks an enum value up by name or number; undefined for the zero (UNSPECIFIED) value or absence. */
export function decodeEnum<N extends string>(v: WireEnum | undefined, numbers: Readonly<Record<string, number>>, field: string): N | undefined {
  if (v === undefined) return undefined;
  const name = typeof v === 'number' ? Object.keys(numbers).find((k) => numbers[k] === v) : v;
  if (name === undefined || !Object.hasOwn(numbers, name)) throw invalidParams(field, `unknown enum value ${JSON.stringify(v)}`);
  return numbers[name] === 0 ? undefined : (name as N);
}

// ---- bytes ----

const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/;

export function decodeBytes(v: WireBytes): string {
  if (typeof v === 'string') return v;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

/** ProtoJSON bytes: standard or URL-safe alphabet, padding optional. */
export function encodeBytes(base64: string, field: string): Buffer {
  if (!BASE64.test(base64)) throw new TypeError(`${field}: not base64`);
  return Buffer.from(base64, 'base64');
}

// ---- google.protobuf.Struct / Value / ListValue ----

export function decodeValue(v: WireValue | undefined, field: string, depth = 0): JsonValue {
  if (depth > MAX_STRUCT_DEPTH) throw invalidParams(field, `nesting deeper than ${MAX_STRUCT_DEPTH}`);
  if (v === undefined || v === null) return null;
  const kind = v.kind ?? firstKind(v);
  switch (kind) {
    case 'stringValue':
      return v.stringValue ?? '';
    case 'boolValue':
      return v.boolValue ?? false;
    case 'numberValue': {
      const n = v.numberValue ?? 0;
      if (!Number.isFinite(n)) throw invalidParams(field, 'NaN and Infinity have no JSON form');
      return n;
    }
    case 'structValue':
      return decodeStructAt(v.structValue, field, depth + 1);
    case 'listValue':
      return decodeListValue(v.listValue, field, depth + 1);
    default:
      // nullValue, or a Value with no kind set (which ProtoJSON also renders as null)
      return null;
  }
}

function firstKind(v: WireValue): string | undefined {
  for (const k of ['nullValue', 'numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'] as const) {
    if (v[k] !== undefined && v[k] !== null) return k;
  }
  return undefined;
}

function decodeListValue(l: WireListValue | undefined, field: string, depth: number): JsonValue[] {
  return (l?.values ?? []).map((item, i) => decodeValue(item, `${field}[${i}]`, depth));
}

function decodeStructAt(s: WireStruct | undefined, field: string, depth: number): JsonObject {
  if (depth > MAX_STRUCT_DEPTH) throw invalidParams(field, `nesting deeper than ${MAX_STRUCT_DEPTH}`);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(s?.fields ?? {})) {
    out[key] = decodeValue(value, `${field}.${key}`, depth);
  }
  return out;
}

export function decodeStruct(s: WireStruct, field: string): JsonObject {
  return decodeStructAt(s, field, 0);
}

/** An optional Struct field: absent stays absent (an empty Struct that was sent stays `{}`). */
export const optStruct = (s: WireStruct | undefined, field: string): JsonObject | undefined => (s === undefined || s === null ? undefined : decodeStruct(s, field));

export function encodeValue(v: JsonValue | undefined, field: string): WireValue {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  switch (typeof v) {
    case 'string':
      return { stringValue: v };
    case 'boolean':
      return { boolValue: v };
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError(`${field}: NaN and Infinity have no JSON form`);
      return { numberValue: v };
    case 'object':
      return Array.isArray(v) ? { listValue: { values: v.map((item, i) => encodeValue(item, `${field}[${i}]`)) } } : { structValue: encodeStruct(v, field) };
    default:
      throw new TypeError(`${field}: ${typeof v} is not JSON`);
  }
}

export function encodeStruct(obj: JsonObject, field: string): WireStruct {
  const fields: Record<string, WireValue> = {};
  for (const [key, value] of Object.entries(obj)) {
    // like JSON.stringify: an undefined member is no member
    if (value !== undefined) fields[key] = encodeValue(value, `${field}.${key}`);
  }
  return { fields };
}

export const encodeOptStruct = (obj: JsonObject | undefined, field: string): WireStruct | undefined => (obj === undefined ? undefined : encodeStruct(obj, field));

// ---- google.protobuf.Timestamp ----

/** Timestamp's valid range, 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62135596800;
const MAX_SECONDS = 253402300799;

/** RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`); sub-millisecond nanos are truncated. */
export function decodeTimestamp(t: WireTimestamp, field: string): string {
  const seconds = Number(t.seconds ?? 0);
  const nanos = t.nanos ?? 0;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw invalidParams(field, 'seconds out of range');
  }
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) throw invalidParams(field, 'nanos out of range');
  return new Date(seconds * 1000 + Math.floor(nanos / 1_000_000)).toISOString();
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses RFC 3339 with any offset and up to nanosecond precision, keeping the nanoseconds. */
export function parseRfc3339(s: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear: Date.UTC would map years 0-99 to 19xx
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  date.setUTCHours(hour, minute, second, 0);
  let seconds = date.getTime() / 1000;
  if (m[8] === undefined) {
    const offset = (Number(m[10]) * 60 + Number(m[11])) * 60;
    seconds -= m[9] === '+' ? offset : -offset;
  }
  const nanos = m[7] === undefined ? 0 : Number(m[7].padEnd(9, '0'));
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) return undefined;
  return { seconds, nanos };
}

export function encodeTimestamp(s: string, field: string): WireTimestamp {
  const t = parseRfc3339(s);
  if (!t) throw new TypeError(`${field}: not an RFC 3339 timestamp: ${JSON.stringify(s)}`);
  return t;
}

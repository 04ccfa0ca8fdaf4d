/**
 * The small pieces of the OTLP JSON request (otlp-json.ts) written the way the SDK's OTLP
 * transform and `JSON.stringify` write them: the resource, a scope's head, a time in nanoseconds,
 * the span flags, AnyValue, the order `Object.keys` lists attribute keys in.
 */
import type { AttributeValue } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { constantOf, JsonBytes } from './json-bytes.js';

/** The OTLP span flags' "has is-remote" and "is remote" bits, above the W3C trace flags' byte. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** The `resource` object of every request, from the resource's attributes (written once a thread). */
export function resourceJson(attributes: Record<string, AttributeValue>): Uint8Array {
  const w = new JsonBytes(256);
  const keys = Object.keys(attributes);
  w.ascii('{"attributes":[');
  keys.forEach((k, i) => {
    if (i > 0) w.ascii(',');
    w.ascii('{"key":');
    w.text(k);
    w.ascii(',"value":');
    w.utf8(anyValue(attributes[k]));
    w.ascii('}');
  });
  w.ascii('],"droppedAttributesCount":0}');
  return w.buf.subarray(0, w.pos);
}

/**
 * Seconds and nanoseconds as the decimal count of nanoseconds, in quotes, written rather than
 * computed (past 2^53 a double is not exact) as the SDK's `hrTimeToNanos` computes it in BigInt. The
 * nanoseconds are not always within a second: a time given before the recording thread's clock
 * started makes both parts negative, and the sum of two parts can reach a whole second.
 */
export function nanos(w: JsonBytes, s: number, ns: number): void {
  while (ns < 0) {
    s -= 1;
    ns += 1e9;
  }
  while (ns >= 1e9) {
    s += 1;
    ns -= 1e9;
  }
  if (s <= 0) {
    w.ascii(`"${BigInt(s) * 1_000_000_000n + BigInt(ns)}"`);
    return;
  }
  // a batch's times fall in a few seconds: their digits are written once and copied
  if (s !== lastSeconds) {
    lastSeconds = s;
    lastSecondsBytes = constantOf(`"${s}`);
  }
  w.constant(lastSecondsBytes);
  w.nineDigits(ns);
  w.byte(34);
}

/** The whole seconds `nanos` wrote last, and their bytes after the opening quote. */
let lastSeconds = -1;
let lastSecondsBytes = constantOf('');

/** `{"scope":{"name":…,"version":…},"spans":[` */
export function scopeHead(scope: InstrumentationScope): Buffer {
  const w = new JsonBytes(64);
  w.ascii('{"scope":{"name":');
  w.text(scope.name);
  if (scope.version !== undefined) {
    w.ascii(',"version":');
    w.text(scope.version);
  }
  w.ascii('},"spans":[');
  return w.buf.subarray(0, w.pos);
}

export function flags(traceFlags: number, remote: boolean): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
}

/** A canonical array index ("0", "7", "42", below 2^32 − 1), which objects list before their other keys. */
export function isArrayIndex(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (k.length > 10 || (c === 48 && k.length > 1)) return false;
  for (let i = 1; i < k.length; i++) {
    const d = k.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(k) < 4294967295;
}

/** An attribute value as OTLP's AnyValue JSON (the SDK's `toAnyValue`): the resource's, and array values. */
export function anyValue(v: unknown): string {
  if (typeof v === 'string') return `{"stringValue":${JSON.stringify(v)}}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `{"intValue":${v}}` : `{"doubleValue":${Number.isFinite(v) ? v : 'null'}}`;
  if (typeof v === 'boolean') return v ? '{"boolValue":true}' : '{"boolValue":false}';
  if (Array.isArray(v)) {
    let out = '';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + anyValue(v[i]);
    return `{"arrayValue":{"values":[${out}]}}`;
  }
  return '{}';
}

export function truncated(v: AttributeValue, max: number): AttributeValue {
  if (max === Number.POSITIVE_INFINITY || !Array.isArray(v)) return v;
  return v.map((e) => (typeof e === 'string' && e.length > max ? e.slice(0, max) : e)) as AttributeValue;
}

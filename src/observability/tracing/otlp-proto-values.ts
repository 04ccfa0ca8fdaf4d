/**
 * The small pieces of the OTLP protobuf request (otlp-proto.ts): the tags of the fields it writes
 * (opentelemetry/proto trace/v1 and common/v1), an id's hex as bytes, AnyValue, the resource and a
 * scope, each as the SDK's `ProtobufTraceSerializer` writes them.
 */
import type { AttributeValue } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { FIXED32, FIXED64, LENGTH, ProtoBytes, tagOf, VARINT } from './proto-bytes.js';

/** The tags written, by message and field. */
export const T = {
  // ExportTraceServiceRequest, ResourceSpans, ScopeSpans
  RESOURCE_SPANS: tagOf(1, LENGTH),
  RESOURCE: tagOf(1, LENGTH),
  SCOPE_SPANS: tagOf(2, LENGTH),
  SCOPE: tagOf(1, LENGTH),
  SCOPE_SPAN: tagOf(2, LENGTH),
  SCHEMA_URL: tagOf(3, LENGTH),
  // Span
  TRACE_ID: tagOf(1, LENGTH),
  SPAN_ID: tagOf(2, LENGTH),
  TRACE_STATE: tagOf(3, LENGTH),
  PARENT_SPAN_ID: tagOf(4, LENGTH),
  NAME: tagOf(5, LENGTH),
  KIND: tagOf(6, VARINT),
  START_TIME: tagOf(7, FIXED64),
  END_TIME: tagOf(8, FIXED64),
  ATTRIBUTES: tagOf(9, LENGTH),
  DROPPED_ATTRIBUTES: tagOf(10, VARINT),
  EVENT: tagOf(11, LENGTH),
  DROPPED_EVENTS: tagOf(12, VARINT),
  LINK: tagOf(13, LENGTH),
  DROPPED_LINKS: tagOf(14, VARINT),
  STATUS: tagOf(15, LENGTH),
  FLAGS: tagOf(16, FIXED32),
  // Status
  STATUS_MESSAGE: tagOf(2, LENGTH),
  STATUS_CODE: tagOf(3, VARINT),
  // Span.Event
  EVENT_TIME: tagOf(1, FIXED64),
  EVENT_NAME: tagOf(2, LENGTH),
  EVENT_ATTRIBUTES: tagOf(3, LENGTH),
  EVENT_DROPPED_ATTRIBUTES: tagOf(4, VARINT),
  // Span.Link
  LINK_TRACE_ID: tagOf(1, LENGTH),
  LINK_SPAN_ID: tagOf(2, LENGTH),
  LINK_TRACE_STATE: tagOf(3, LENGTH),
  LINK_ATTRIBUTES: tagOf(4, LENGTH),
  LINK_DROPPED_ATTRIBUTES: tagOf(5, VARINT),
  LINK_FLAGS: tagOf(6, FIXED32),
  // KeyValue, AnyValue, ArrayValue, KeyValueList, Resource, InstrumentationScope
  KEY: tagOf(1, LENGTH),
  VALUE: tagOf(2, LENGTH),
  STRING_VALUE: tagOf(1, LENGTH),
  BOOL_VALUE: tagOf(2, VARINT),
  INT_VALUE: tagOf(3, VARINT),
  DOUBLE_VALUE: tagOf(4, FIXED64),
  ARRAY_VALUE: tagOf(5, LENGTH),
  KVLIST_VALUE: tagOf(6, LENGTH),
  BYTES_VALUE: tagOf(7, LENGTH),
  LIST_ITEM: tagOf(1, LENGTH),
  RESOURCE_ATTRIBUTE: tagOf(1, LENGTH),
  RESOURCE_DROPPED: tagOf(2, VARINT),
  SCOPE_NAME: tagOf(1, LENGTH),
  SCOPE_VERSION: tagOf(2, LENGTH),
} as const;

/** A hex digit's value as the SDK's `hexToBinary` reads it (0–9, a–f, else as A–F). */
function digit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return c - 55;
}

/** An id given as hex text (`length` characters of `text` at `at`) as its length and bytes. */
export function hexBytes(w: ProtoBytes, text: string, at: number, length: number): void {
  const n = length >> 1;
  w.varint(n);
  w.room(n);
  const b = w.buf;
  const p = w.pos;
  for (let i = 0; i < n; i++) b[p + i] = (digit(text.charCodeAt(at + 2 * i)) << 4) | digit(text.charCodeAt(at + 2 * i + 1));
  w.pos = p + n;
}

/** int64's range: an integer outside it is written as a double, as the SDK does. */
const INT64_MIN = -(2 ** 63);
const INT64_MAX = 2 ** 63;

/** An AnyValue's fields (the SDK's `writeAnyValue`): the resource's values, numbers and array values. */
export function anyValueProto(w: ProtoBytes, v: unknown): void {
  if (typeof v === 'string') {
    w.varint(T.STRING_VALUE);
    w.utf8(v);
  } else if (typeof v === 'boolean') w.field(T.BOOL_VALUE, v ? 1 : 0);
  else if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= INT64_MIN && v < INT64_MAX) {
      w.varint(T.INT_VALUE);
      w.int64(v);
    } else {
      w.varint(T.DOUBLE_VALUE);
      w.double(v);
    }
  } else if (v instanceof Uint8Array) {
    w.varint(T.BYTES_VALUE);
    w.varint(v.length);
    w.copy(v, 0, v.length);
  } else if (Array.isArray(v)) {
    w.varint(T.ARRAY_VALUE);
    const list = w.begin();
    for (const item of v) {
      w.varint(T.LIST_ITEM);
      const at = w.begin();
      anyValueProto(w, item);
      w.end(at);
    }
    w.end(list);
  } else if (typeof v === 'object' && v !== null) {
    w.varint(T.KVLIST_VALUE);
    const list = w.begin();
    keyValues(w, v as Record<string, unknown>, T.LIST_ITEM);
    w.end(list);
  }
}

/** An object's own keys and values as KeyValues under `tag`, in `for…in` order. */
function keyValues(w: ProtoBytes, o: Record<string, unknown>, tag: number): void {
  for (const key of Object.keys(o)) {
    w.varint(tag);
    const kv = w.begin();
    w.varint(T.KEY);
    w.utf8(key);
    w.varint(T.VALUE);
    const value = w.begin();
    anyValueProto(w, o[key]);
    w.end(value);
    w.end(kv);
  }
}

/** The `resource` field of every request, tag and length included, from the resource's attributes (written once a thread). */
export function resourceProto(attributes: Record<string, AttributeValue>): Uint8Array {
  const w = new ProtoBytes(256);
  w.varint(T.RESOURCE);
  const at = w.begin();
  keyValues(w, attributes, T.RESOURCE_ATTRIBUTE);
  w.field(T.RESOURCE_DROPPED, 0);
  w.end(at);
  return w.buf.subarray(0, w.pos);
}

/** A ScopeSpans's `scope` field, tag and length included. */
export function scopeProto(scope: InstrumentationScope): Uint8Array {
  const w = new ProtoBytes(64);
  w.varint(T.SCOPE);
  const at = w.begin();
  w.varint(T.SCOPE_NAME);
  w.utf8(scope.name);
  if (scope.version) {
    w.varint(T.SCOPE_VERSION);
    w.utf8(scope.version);
  }
  w.end(at);
  return w.buf.subarray(0, w.pos);
}

/** A ScopeSpans's `schema_url` field after its spans, when the scope has one. */
export function schemaUrlProto(scope: InstrumentationScope): Uint8Array {
  if (!scope.schemaUrl) return new Uint8Array(0);
  const w = new ProtoBytes(64);
  w.varint(T.SCHEMA_URL);
  w.utf8(scope.schemaUrl);
  return w.buf.subarray(0, w.pos);
}

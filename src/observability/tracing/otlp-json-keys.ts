/**
 * The constant pieces of a span's OTLP JSON (otlp-json.ts) as bytes made once, copied with the
 * typed array's `set` (`JsonBytes.constant`): the encoder took about a sixth less time a span than
 * writing them from a string one `charCodeAt` a byte, and less than a byte loop over these arrays
 * (docs/benchmarks.md, issue 26 — enc33).
 */

import { constantOf as bytes, type JsonBytes } from './json-bytes.js';

export const TRACE_ID = bytes('{"traceId":');
export const SPAN_ID = bytes(',"spanId":');
export const PARENT_SPAN_ID = bytes(',"parentSpanId":');
export const NAME = bytes(',"name":');
export const KIND = bytes(',"kind":');
export const START_TIME = bytes(',"startTimeUnixNano":');
export const END_TIME = bytes(',"endTimeUnixNano":');
export const ATTRIBUTES = bytes(',"attributes":');
export const DROPPED_ATTRIBUTES = bytes(',"droppedAttributesCount":');
/** no events and the status's code next (the usual span) */
export const NO_EVENTS_STATUS = bytes(',"events":[],"droppedEventsCount":0,"status":{"code":');
/** no links and the flags next (the usual span) */
export const NO_LINKS_FLAGS = bytes('},"links":[],"droppedLinksCount":0,"flags":');
export const FIRST_KEY = bytes('{"key":');
export const NEXT_KEY = bytes(',{"key":');
export const STRING_VALUE = bytes(',"value":{"stringValue":');
export const INT_VALUE = bytes(',"value":{"intValue":');
export const DOUBLE_VALUE = bytes(',"value":{"doubleValue":');
export const TRUE_VALUE = bytes(',"value":{"boolValue":true}}');
export const FALSE_VALUE = bytes(',"value":{"boolValue":false}}');

/** `,"kind":…,"startTimeUnixNano":` for each SpanKind (0 to 4), the kind plus one as OTLP numbers it. */
const KIND_START = [0, 1, 2, 3, 4].map((kind) => bytes(`,"kind":${kind + 1},"startTimeUnixNano":`));

/** The span's kind and the start time's key, one copy for a known kind. */
export function kindStart(w: JsonBytes, kind: number): void {
  const known = KIND_START[kind];
  if (known) {
    w.constant(known);
    return;
  }
  w.constant(KIND);
  w.uint(kind + 1);
  w.constant(START_TIME);
}

/** From the dropped attribute count to the flags' key, for a span of no events, no links and no status message, by status code. */
const USUAL_TAIL = [0, 1, 2].map((code) => bytes(`,"droppedAttributesCount":0,"events":[],"droppedEventsCount":0,"status":{"code":${code}},"links":[],"droppedLinksCount":0,"flags":`));

/** What a span of no events, no links and no status message has between its attributes and its flags' value: one copy when none was dropped. */
export function usualTail(w: JsonBytes, droppedAttributes: number, code: number): void {
  const known = droppedAttributes === 0 ? USUAL_TAIL[code] : undefined;
  if (known) {
    w.constant(known);
    return;
  }
  w.constant(DROPPED_ATTRIBUTES);
  w.uint(droppedAttributes);
  w.constant(NO_EVENTS_STATUS);
  w.uint(code);
  w.constant(NO_LINKS_FLAGS);
}

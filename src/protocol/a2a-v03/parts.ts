/**
 * Parts: v0.3 `{kind:"text"|"file"|"data"}` ⇄ the v1.0 oneof (`text` | `raw` | `url` | `data`).
 * `file.name`/`file.mimeType` become `filename`/`mediaType`.
 */
import { invalidParams } from '../a2a/errors.js';
import type { JsonObject, JsonValue, Part } from '../a2a/types.js';
import { checkDepth, isObject, obj, optJsonObject, optStr } from './fields.js';
import type { V03Part } from './types.js';

/**
 * v0.3 data parts hold an object only. A v1.0 `data` of any other JSON type is wrapped as
 * `{value: …}` and flagged with this metadata key, the convention a2a-js uses, so that clients
 * which know it can unwrap (and we unwrap it on the way back in).
 */
export const DATA_PART_COMPAT_KEY = 'data_part_compat';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const KINDS = ['text', 'file', 'data'] as const;

/** A v0.3 part from the wire. A missing `kind` is inferred from the one content key present. */
export function partToV1(v: unknown, field: string): Part {
  const p = obj(v, field);
  const kind = p.kind ?? KINDS.find((k) => p[k] !== undefined);
  const metadata = optJsonObject(p.metadata, `${field}.metadata`);
  let out: Part;
  if (kind === 'text') {
    if (typeof p.text !== 'string') throw invalidParams(`${field}.text`, 'is required and must be a string');
    out = { text: p.text };
  } else if (kind === 'file') {
    out = fileToV1(p.file, `${field}.file`);
  } else if (kind === 'data') {
    if (!isObject(p.data)) throw invalidParams(`${field}.data`, 'is required and must be an object');
    checkDepth(p.data, `${field}.data`);
    const wrapped = metadata?.[DATA_PART_COMPAT_KEY] === true && Object.keys(p.data).length === 1 && 'value' in p.data;
    out = { data: (wrapped ? p.data.value : p.data) as JsonValue };
    if (wrapped && metadata) {
      const { [DATA_PART_COMPAT_KEY]: _flag, ...rest } = metadata;
      if (Object.keys(rest).length) out.metadata = rest;
      return out;
    }
  } else {
    throw invalidParams(`${field}.kind`, "must be 'text', 'file' or 'data'");
  }
  if (metadata) out.metadata = metadata;
  return out;
}

function fileToV1(v: unknown, field: string): Part {
  const f = obj(v, field);
  const hasBytes = f.bytes !== undefined && f.bytes !== null;
  const hasUri = f.uri !== undefined && f.uri !== null;
  if (hasBytes === hasUri) throw invalidParams(field, 'must carry exactly one of bytes, uri');
  const out: Part = {};
  if (hasBytes) {
    if (typeof f.bytes !== 'string' || !BASE64.test(f.bytes)) throw invalidParams(`${field}.bytes`, 'must be base64');
    out.raw = f.bytes;
  } else {
    if (typeof f.uri !== 'string' || f.uri === '') throw invalidParams(`${field}.uri`, 'must be a non-empty string');
    out.url = f.uri;
  }
  const name = optStr(f.name, `${field}.name`);
  if (name) out.filename = name;
  const mimeType = optStr(f.mimeType, `${field}.mimeType`);
  if (mimeType) out.mediaType = mimeType;
  return out;
}

/**
 * A v1.0 part for a v0.3 client. Lossy: a text or data part's `mediaType`/`filename` have no
 * place in v0.3 and are dropped.
 */
export function partFromV1(p: Part): V03Part {
  const metadata = p.metadata;
  if (p.text !== undefined) return withMetadata({ kind: 'text', text: p.text }, metadata);
  if (p.raw !== undefined || p.url !== undefined) {
    const file = p.raw !== undefined ? { bytes: p.raw } : { uri: p.url as string };
    return withMetadata({ kind: 'file', file: { ...file, ...(p.filename ? { name: p.filename } : {}), ...(p.mediaType ? { mimeType: p.mediaType } : {}) } }, metadata);
  }
  const data = p.data ?? null;
  if (isObject(data)) return withMetadata({ kind: 'data', data: data as JsonObject }, metadata);
  return { kind: 'data', data: { value: data }, metadata: { ...metadata, [DATA_PART_COMPAT_KEY]: true } };
}

function withMetadata<T extends V03Part>(part: T, metadata: JsonObject | undefined): T {
  return metadata ? { ...part, metadata } : part;
}

/**
 * Parts: v0.1 `{type:"text"|"file"|"data"}` ⇄ the v1.0 oneof. Same content model as v0.3 with
 * `type` for `kind`; `file.name`/`file.mimeType` become `filename`/`mediaType`.
 */
import { invalidParams } from '../a2a/errors.js';
import type { JsonObject, Part } from '../a2a/types.js';
import { checkDepth, isObject, obj, optJsonObject, optStr } from '../a2a-v03/fields.js';
import type { V01Part } from './types.js';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export function partToV1(v: unknown, field: string): Part {
  const p = obj(v, field);
  const metadata = optJsonObject(p.metadata, `${field}.metadata`);
  let out: Part;
  if (p.type === 'text') {
    if (typeof p.text !== 'string') throw invalidParams(`${field}.text`, 'is required and must be a string');
    out = { text: p.text };
  } else if (p.type === 'file') {
    const f = obj(p.file, `${field}.file`);
    const hasBytes = f.bytes !== undefined && f.bytes !== null;
    const hasUri = f.uri !== undefined && f.uri !== null;
    if (hasBytes === hasUri) throw invalidParams(`${field}.file`, 'must carry exactly one of bytes, uri');
    if (hasBytes) {
      if (typeof f.bytes !== 'string' || !BASE64.test(f.bytes)) throw invalidParams(`${field}.file.bytes`, 'must be base64');
      out = { raw: f.bytes };
    } else {
      if (typeof f.uri !== 'string' || f.uri === '') throw invalidParams(`${field}.file.uri`, 'must be a non-empty string');
      out = { url: f.uri };
    }
    const name = optStr(f.name, `${field}.file.name`);
    if (name) out.filename = name;
    const mimeType = optStr(f.mimeType, `${field}.file.mimeType`);
    if (mimeType) out.mediaType = mimeType;
  } else if (p.type === 'data') {
    if (!isObject(p.data)) throw invalidParams(`${field}.data`, 'is required and must be an object');
    checkDepth(p.data, `${field}.data`);
    out = { data: p.data as JsonObject };
  } else {
    throw invalidParams(`${field}.type`, "must be 'text', 'file' or 'data'");
  }
  if (metadata) out.metadata = metadata;
  return out;
}

/** Lossy: v0.1 data parts hold objects only; any other JSON value is sent as `{value: …}`. */
export function partFromV1(p: Part): V01Part {
  const meta = p.metadata ? { metadata: p.metadata } : {};
  if (p.text !== undefined) return { type: 'text', text: p.text, ...meta };
  if (p.raw !== undefined || p.url !== undefined) {
    return {
      type: 'file',
      file: {
        ...(p.raw !== undefined ? { bytes: p.raw } : { uri: p.url as string }),
        ...(p.filename ? { name: p.filename } : {}),
        ...(p.mediaType ? { mimeType: p.mediaType } : {}),
      },
      ...meta,
    };
  }
  const data = p.data ?? null;
  return { type: 'data', data: isObject(data) ? (data as JsonObject) : { value: data }, ...meta };
}

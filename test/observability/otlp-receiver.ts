/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for the tracing tests: accepts POST /v1/traces in either
 * encoding the OTLP/HTTP exporter sends — binary protobuf, read with the SDK's own protobuf reader,
 * or JSON (the OTLP JSON mapping: hex trace and span ids) — and
 * keeps every span with its resource's service instance.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  /** the OTLP status code (0 unset, 1 ok, 2 error; absent in the JSON reads as 0) */
  status: number;
  /** service.instance.id of the exporting process (the replica id) */
  instance?: string;
  service?: string;
}

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** content types of the export requests seen */
  contentTypes: string[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function decodeAnyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decodeAnyValue);
  return undefined;
}

const attrs = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeAnyValue(kv.value)]));

/** The fields of a message as [field number, wire type, value]: a length-delimited one as its bytes, a fixed64 as its 8 bytes. */
function fields(buf: Uint8Array): Array<[number, number, any]> {
  const r = new ProtobufReader(buf);
  const out: Array<[number, number, any]> = [];
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag();
    if (wireType === 0) out.push([fieldNumber, wireType, r.readVarint()]);
    else if (wireType === 2) out.push([fieldNumber, wireType, r.readBytes()]);
    else {
      const at = r.pos;
      r.skip(wireType);
      out.push([fieldNumber, wireType, buf.subarray(at, r.pos)]);
    }
  }
  return out;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function protobufAnyValue(buf: Uint8Array): AnyValue {
  const v: AnyValue = {};
  for (const [f, , x] of fields(buf)) {
    if (f === 1) v.stringValue = text(x);
    else if (f === 2) v.boolValue = x === 1;
    else if (f === 3) v.intValue = x;
    else if (f === 4) v.doubleValue = Buffer.from(x).readDoubleLE(0);
    else if (f === 5) v.arrayValue = { values: fields(x).map(([, , item]) => protobufAnyValue(item)) };
  }
  return v;
}

const protobufKeyValue = (buf: Uint8Array): KeyValue => {
  const kv: KeyValue = { key: '', value: {} };
  for (const [f, , x] of fields(buf)) {
    if (f === 1) kv.key = text(x);
    else if (f === 2) kv.value = protobufAnyValue(x);
  }
  return kv;
};

/** A binary protobuf ExportTraceServiceRequest (opentelemetry/proto trace/v1) in the JSON mapping's shape, with the fields kept here. */
function protobufRequest(buf: Uint8Array): { resourceSpans: any[] } {
  return {
    resourceSpans: fields(buf).map(([, , rs]) => {
      const out: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: any[] }[] } = { resource: { attributes: [] }, scopeSpans: [] };
      for (const [f, , x] of fields(rs)) {
        if (f === 1) out.resource.attributes = fields(x).flatMap(([g, , kv]) => (g === 1 ? [protobufKeyValue(kv)] : []));
        else if (f === 2) out.scopeSpans.push({ spans: fields(x).flatMap(([g, , span]) => (g === 2 ? [protobufSpan(span)] : [])) });
      }
      return out;
    }),
  };
}

function protobufSpan(buf: Uint8Array): Record<string, unknown> {
  const s: Record<string, any> = { attributes: [], links: [] };
  for (const [f, , x] of fields(buf)) {
    if (f === 1) s.traceId = hex(x);
    else if (f === 2) s.spanId = hex(x);
    else if (f === 4) s.parentSpanId = hex(x);
    else if (f === 5) s.name = text(x);
    else if (f === 6) s.kind = x;
    else if (f === 9) s.attributes.push(protobufKeyValue(x));
    else if (f === 13) s.links.push(Object.fromEntries(fields(x).flatMap(([g, , id]) => (g === 1 ? [['traceId', hex(id)]] : g === 2 ? [['spanId', hex(id)]] : []))));
    else if (f === 15) s.status = { code: fields(x).find(([g]) => g === 3)?.[2] ?? 0 };
  }
  return s;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.push(String(req.headers['content-type']));
      const protobuf = req.headers['content-type'] === 'application/x-protobuf';
      try {
        const raw = Buffer.concat(chunks);
        const body = (protobuf ? protobufRequest(raw) : JSON.parse(raw.toString('utf8'))) as { resourceSpans?: any[] };
        for (const rs of body.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: s.kind,
                attributes: attrs(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: Number(s.status?.code ?? 0),
                instance: resource['service.instance.id'] as string | undefined,
                service: resource['service.name'] as string | undefined,
              });
            }
          }
        }
        // an empty ExportTraceServiceResponse, in the request's encoding
        if (protobuf) res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

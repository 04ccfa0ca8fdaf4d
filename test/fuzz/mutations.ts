/**
 * fast-check arbitraries that turn a seed request (corpus.ts) into a hostile one: JSON values
 * replaced, removed or added (prototype keys, extremes, deep nesting, long strings), bytes cut or
 * inserted, headers and credentials changed, methods and paths bent. A FuzzRequest is plain data,
 * so a failing input is printed and replayed exactly.
 */
import fc from 'fast-check';
import { exceedsJsonDepth } from '../../src/bindings/json-depth.js';
import type { SeedRequest } from './corpus.js';

export interface FuzzRequest {
  /** the face of the seed (a mutated path may land on another) */
  face: string;
  origin: string;
  /** what was done to the seed, for reports */
  mutations: string[];
  method: string;
  path: string;
  headers: Record<string, string>;
  /** base64 of the body bytes (bodies may be invalid UTF-8) */
  body?: string;
  /** sent with Transfer-Encoding: chunked instead of a Content-Length */
  chunked?: boolean;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'];
const HEADERS = [
  'content-type',
  'accept',
  'a2a-version',
  'a2a-extensions',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  'origin',
  'x-request-id',
  'if-none-match',
  'if-modified-since',
  'cookie',
  'content-encoding',
  'accept-encoding',
];
const CONTENT_TYPES = ['application/json', 'application/a2a+json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/grpc', '*/*', ''];

/** Printable header text (what an HTTP client can send at all). */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });

const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '../../etc/passwd',
    '%00',
    '<script>alert(1)</script>',
    '${7*7}',
    'NaN',
    'null',
    '-1',
    '1e309',
    'TASK_STATE_COMPLETED',
    'ROLE_AGENT',
    'a2a:publish',
    'admin',
    'http://127.0.0.1:1/',
    'file:///etc/passwd',
    'tasks/x/pushNotificationConfigs/y',
  ),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

const nastyValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, -(2 ** 63), [], {}, [null], { '': null }) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 20_000 }).map((depth) => `${DEEP}${depth}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 50_000 }).map((n) => Array.from({ length: n }, (_, i) => i) as Json) },
);

/**
 * Deep nesting is written into the text after serialization (a marker string stands for it), as
 * JSON.stringify itself cannot take a value nested thousands deep.
 */
const DEEP = '\u0001deep:';
const DEEP_MARKER = /"\\u0001deep:(\d+)"/g;
function nestedText(depth: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 ? '[' : '{"a":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** Every node of a JSON value as a path of keys. */
function pathsOf(v: Json, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (out.length > 400) return out;
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

function setAt(root: Json, p: Array<string | number>, value: Json | undefined): Json {
  if (p.length === 0) return value ?? null;
  let node = root as Record<string | number, Json>;
  for (const k of p.slice(0, -1)) node = node[k] as Record<string | number, Json>;
  const last = p[p.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else if (last === '__proto__') Object.defineProperty(node, last, { value, enumerable: true, configurable: true, writable: true });
  else node[last] = value;
  return root;
}

type Mutation = (r: FuzzRequest, body: Buffer | undefined) => { r: FuzzRequest; body: Buffer | undefined };

function jsonMutation(name: string, edit: (v: Json, paths: Array<Array<string | number>>) => Json): Mutation {
  return (r, body) => {
    if (!body || exceedsJsonDepth(body.toString('utf8'), 64)) return { r, body };
    let v: Json;
    try {
      v = JSON.parse(body.toString('utf8')) as Json;
    } catch {
      return { r, body };
    }
    const next = edit(v, pathsOf(v));
    const text = (JSON.stringify(next) ?? 'null').replace(DEEP_MARKER, (_, depth: string) => nestedText(Number(depth)));
    return { r: { ...r, mutations: [...r.mutations, name] }, body: Buffer.from(text) };
  };
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.nat(), nastyValue).map(([i, value]) => jsonMutation('json: replace a value', (v, ps) => setAt(v, ps[i % ps.length]!, value))) },
  { weight: 2, arbitrary: fc.nat().map((i) => jsonMutation('json: remove a value', (v, ps) => (ps.length > 1 ? setAt(v, ps[1 + (i % (ps.length - 1))]!, undefined) : v))) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.oneof(
          fc.constantFrom(
            '__proto__',
            'constructor',
            'prototype',
            'toString',
            'hasOwnProperty',
            'jsonrpc',
            'id',
            'method',
            'params',
            'kind',
            'role',
            'parts',
            'tenant',
            'metadata',
            '_meta',
            'taskId',
            'contextId',
            'extensions',
          ),
          fc.string({ maxLength: 10 }),
        ),
        nastyValue,
      )
      .map(([i, key, value]) =>
        jsonMutation(`json: add "${key}"`, (v, ps) => {
          const objects = ps.filter((p) => {
            let n: unknown = v;
            for (const k of p) n = (n as Record<string | number, unknown>)[k];
            return n !== null && typeof n === 'object' && !Array.isArray(n);
          });
          return objects.length ? setAt(v, [...objects[i % objects.length]!, key], value) : v;
        }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.oneof(
          fc.uint8Array({ maxLength: 16 }),
          fc.constantFrom(new Uint8Array([0xff, 0xfe]), new Uint8Array([0xc3]), new Uint8Array([0xed, 0xa0, 0x80]), Buffer.from('"'), Buffer.from('{'), Buffer.from(']'), Buffer.from('\\u')),
        ),
      )
      .map(
        ([at, bytes]): Mutation =>
          (r, body) => {
            const b = body ?? Buffer.alloc(0);
            const i = b.length ? at % (b.length + 1) : 0;
            return { r: { ...r, mutations: [...r.mutations, 'bytes: insert'] }, body: Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)]) };
          },
      ),
  },
  { weight: 1, arbitrary: fc.constant<Mutation>((r, body) => ({ r: { ...r, mutations: [...r.mutations, 'chunked'], chunked: true }, body })) },
  {
    weight: 1,
    arbitrary: fc.nat().map(
      (at): Mutation =>
        (r, body) => ({ r: { ...r, mutations: [...r.mutations, 'bytes: truncate'] }, body: body ? body.subarray(0, at % (body.length + 1)) : body }),
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...HEADERS),
        fc.oneof(headerText, fc.constantFrom(...CONTENT_TYPES), fc.constantFrom('0.3', '1.0', '0.1', '9.9', '1', '', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'text/event-stream', 'application/json')),
      )
      .map(
        ([name, value]): Mutation =>
          (r, body) => ({ r: { ...r, mutations: [...r.mutations, `header ${name}: ${value.slice(0, 30)}`], headers: { ...r.headers, [name]: value } }, body }),
      ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...HEADERS, 'content-type').map(
      (name): Mutation =>
        (r, body) => {
          const h = { ...r.headers };
          delete h[name];
          return { r: { ...r, mutations: [...r.mutations, `header ${name} removed`], headers: h }, body };
        },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<[string, Record<string, string>]>(
        ['no credential', {}],
        ['unknown API key', { 'x-api-key': 'ap_0123456789abcdef_nope' }],
        ['garbage bearer', { authorization: 'Bearer a.b.c' }],
        ['malformed JWT', { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' }],
        ['basic auth', { authorization: 'Basic Zm9vOmJhcg==' }],
        ['empty bearer', { authorization: 'Bearer ' }],
      )
      .map(
        ([name, creds]): Mutation =>
          (r, body) => {
            const h = { ...r.headers };
            delete h['x-api-key'];
            delete h.authorization;
            return { r: { ...r, mutations: [...r.mutations, `credential: ${name}`], headers: { ...h, ...creds } }, body };
          },
      ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...METHODS).map(
      (m): Mutation =>
        (r, body) => ({ r: { ...r, mutations: [...r.mutations, `method ${m}`], method: m }, body }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.oneof(
          fc.constantFrom('%', '%zz', '%00', '..', '.', '', '%2F', 'a'.repeat(600), '\u00e9', ':cancel', ':subscribe', 'v1', 'mcp', 'tasks', '.well-known', '*'),
          fc.string({ maxLength: 12 }).map(encodeURIComponent),
        ),
        fc.boolean(),
      )
      .map(
        ([i, seg, replace]): Mutation =>
          (r, body) => {
            const q = r.path.indexOf('?');
            const segs = (q < 0 ? r.path : r.path.slice(0, q)).split('/');
            const at = 1 + (i % Math.max(1, segs.length - 1));
            if (replace) segs[at] = seg;
            else segs.splice(at, 0, seg);
            const p = (segs.join('/') || '/') + (q < 0 ? '' : r.path.slice(q));
            return { r: { ...r, mutations: [...r.mutations, `path ${p.slice(0, 60)}`], path: p.replace(/[^\x21-\x7e]/g, encodeURIComponent) }, body };
          },
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('historyLength', 'pageSize', 'pageToken', 'tenant', 'status', 'contextId', 'includeArtifacts', 'statusTimestampAfter', 'state', 'client_id', 'redirect_uri'),
        fc.oneof(fc.constantFrom('-1', '0', '1e9', 'NaN', '', 'x', '99999999999999999999', '%zz', '%00'), fc.string({ maxLength: 8 }).map(encodeURIComponent)),
      )
      .map(
        ([k, v]): Mutation =>
          (r, body) => ({ r: { ...r, mutations: [...r.mutations, `query ${k}=${v}`], path: `${r.path}${r.path.includes('?') ? '&' : '?'}${k}=${v}` }, body }),
      ),
  },
);

/** A seed from the corpus, then 0 to 4 mutations; every request carries the server's key unless a mutation changes it. */
export function fuzzRequest(seeds: readonly SeedRequest[], key: string): fc.Arbitrary<FuzzRequest> {
  // Mostly mutated; one in seven goes out as recorded (a valid request must stay valid under load).
  const mutations = fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 6, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }) });
  return fc.tuple(fc.nat(seeds.length - 1), mutations).map(([i, mutations]) => {
    const seed = seeds[i]!;
    let r: FuzzRequest = { face: seed.face, origin: seed.origin, mutations: [], method: seed.method, path: seed.path, headers: { 'x-api-key': key, ...seed.headers } };
    let body: Buffer | undefined = seed.body === undefined ? undefined : Buffer.from(seed.body);
    for (const m of mutations) ({ r, body } = m(r, body));
    return { ...r, ...(body !== undefined ? { body: body.toString('base64') } : {}) };
  });
}

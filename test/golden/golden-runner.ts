/**
 * Replays golden fixtures (test/fixtures/golden/<version>/<binding>/<operation>.json) against a
 * running server: each step's request goes out as written, and the response must equal the
 * recorded one after normalisation. Normalisation is explicit and value-based, never field-based:
 *
 * - server-made ids (UUIDs) become `<id:N>`, numbered by first appearance in the fixture, so the
 *   same id in two places must still be the same id; they may be used in later requests;
 * - v0.1 namespaced task ids `<client id>.<12 hex>` become `<client id>.<ns>`;
 * - RFC 3339 timestamps become `<timestamp>` (and must parse);
 * - a non-empty `nextPageToken` (an opaque cursor over ids and times) becomes `<token:N>`, usable
 *   in a later request like an id;
 * - the server's own base URLs become `<http>` and `<grpc>`;
 * - a card signature's `protected` header is decoded and compared as JSON (its per-server `kid`
 *   becomes `<kid>`), and its `signature` becomes `<signature>` once it is a well-formed base64url
 *   ES256/EdDSA signature (64 bytes).
 *
 * Every other byte of the status, the Content-Type, the headers a fixture lists, and the body (or
 * each SSE event's id and data) is compared.
 *
 * Beside each recorded response, a step's `check` names the fields that matter, by path
 * (`body.error.code`, `events.-1.data.result.final`, `body.tasks.length`), with their expected
 * values: written and reviewed by hand, never rewritten. The suite asserts them apart from the
 * recording; re-recording (`npm run golden:update`, golden-update.ts) keeps them and refuses a
 * recording that contradicts one.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GoldenRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** JSON body; a string is sent as is (for malformed-input fixtures) */
  body?: unknown;
}
export interface GoldenResponse {
  status: number;
  contentType: string;
  headers?: Record<string, string>;
  body?: unknown;
  events?: Array<{ id?: string; data: unknown }>;
}
export interface GoldenStep {
  request: GoldenRequest;
  /** path → expected value of the fields that matter (see above) */
  check?: Record<string, unknown>;
  response?: GoldenResponse;
}
export interface GoldenFixture {
  description: string;
  steps: GoldenStep[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const NAMESPACED = /\.[0-9a-f]{12}\b/g;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const PLACEHOLDER = /<(?:id|token):\d+>/g;

export class Normalizer {
  private readonly toPlaceholder = new Map<string, string>();
  private readonly toValue = new Map<string, string>();

  constructor(private readonly bases: { http: string; grpc: string }) {}

  normalize(v: unknown): unknown {
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return v.map((x) => this.normalize(x));
    if (v && typeof v === 'object') {
      if (isCardSignature(v)) return this.signature(v);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'nextPageToken' && typeof x === 'string' && x !== '' ? this.placeholder(x, 'token') : this.normalize(x)]));
    }
    return v;
  }

  private signature(sig: { protected: string; signature: string } & Record<string, unknown>): unknown {
    const header = JSON.parse(Buffer.from(sig.protected, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof header.kid !== 'string' || header.kid === '') throw new Error('card signature header without kid');
    const bytes = Buffer.from(sig.signature, 'base64url');
    if (!/^[A-Za-z0-9_-]+$/.test(sig.signature) || bytes.length !== 64) throw new Error(`not a 64-byte base64url signature: ${sig.signature}`);
    const { protected: _p, signature: _s, ...rest } = sig;
    return { ...(this.normalize(rest) as object), protected: this.normalize({ ...header, kid: '<kid>' }), signature: '<signature>' };
  }

  /** Puts recorded ids and base URLs back into a request. */
  denormalize(v: unknown): unknown {
    if (typeof v === 'string') {
      return v
        .replaceAll('<http>', this.bases.http)
        .replaceAll('<grpc>', this.bases.grpc)
        .replace(PLACEHOLDER, (p) => {
          const value = this.toValue.get(p);
          if (value === undefined) throw new Error(`fixture uses ${p} before any response produced it`);
          return value;
        });
    }
    if (Array.isArray(v)) return v.map((x) => this.denormalize(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.denormalize(x)]));
    return v;
  }

  private string(s: string): string {
    if (TIMESTAMP.test(s)) {
      if (Number.isNaN(Date.parse(s))) throw new Error(`not a timestamp: ${s}`);
      return '<timestamp>';
    }
    return s
      .replaceAll(this.bases.http, '<http>')
      .replaceAll(this.bases.grpc, '<grpc>')
      .replace(UUID, (id) => this.placeholder(id, 'id'))
      .replace(NAMESPACED, '.<ns>');
  }

  private placeholder(id: string, kind: 'id' | 'token'): string {
    let p = this.toPlaceholder.get(id);
    if (!p) {
      p = `<${kind}:${[...this.toPlaceholder.values()].filter((x) => x.startsWith(`<${kind}:`)).length + 1}>`;
      this.toPlaceholder.set(id, p);
      this.toValue.set(p, id);
    }
    return p;
  }
}

const isCardSignature = (v: object): v is { protected: string; signature: string } => typeof (v as { protected?: unknown }).protected === 'string' && typeof (v as { signature?: unknown }).signature === 'string';

/** Fixture files under `dir`, recursively, as [relative path, absolute path]. */
export function fixtureFiles(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.json')) out.push([path.relative(dir, full), full]);
    }
  };
  walk(dir);
  return out;
}

export const readFixture = (file: string): GoldenFixture => JSON.parse(readFileSync(file, 'utf8')) as GoldenFixture;
export const writeFixture = (file: string, f: GoldenFixture): void => writeFileSync(file, `${JSON.stringify(f, null, 2)}\n`);

function parseSse(text: string): Array<{ id?: string; data: unknown }> {
  const out: Array<{ id?: string; data: unknown }> = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l && !l.startsWith(':'));
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    if (!data.length) continue;
    const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
    out.push({ ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) });
  }
  return out;
}

/** Sends one step's request and returns its response, normalised. */
export async function runStep(step: GoldenStep, n: Normalizer, baseHeaders: Record<string, string>): Promise<GoldenResponse> {
  const req = n.denormalize(step.request) as GoldenRequest;
  const method = req.method ?? 'POST';
  const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const res = await fetch(`${n.denormalize('<http>') as string}${req.path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...baseHeaders, ...req.headers },
    ...(body !== undefined ? { body } : {}),
  });
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  const out: GoldenResponse = { status: res.status, contentType };
  const listed = step.response?.headers;
  if (listed) out.headers = Object.fromEntries(Object.keys(listed).map((k) => [k, res.headers.get(k) ?? '<absent>']));
  if (contentType.startsWith('text/event-stream')) out.events = parseSse(text);
  else if (text !== '') out.body = JSON.parse(text);
  return n.normalize(out) as GoldenResponse;
}

/**
 * The value at a dotted path in a response: object keys, array indexes (negative from the end) and
 * `length` of an array; `<absent>` where the path leads nowhere.
 */
export function valueAt(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const segment of path.split('.')) {
    if (Array.isArray(v)) {
      if (segment === 'length') v = v.length;
      else if (/^-?\d+$/.test(segment)) v = v.at(Number(segment));
      else return '<absent>';
    } else if (v !== null && typeof v === 'object' && Object.hasOwn(v, segment)) v = (v as Record<string, unknown>)[segment];
    else return '<absent>';
    if (v === undefined) return '<absent>';
  }
  return v;
}

/** The checks of a step a response contradicts, as `path: expected …, got …` lines. */
export function failedChecks(step: GoldenStep, response: GoldenResponse): string[] {
  const failed: string[] = [];
  for (const [path, expected] of Object.entries(step.check ?? {})) {
    const got = valueAt(response, path);
    if (JSON.stringify(got) !== JSON.stringify(expected)) failed.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
  }
  return failed;
}

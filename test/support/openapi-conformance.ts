/**
 * Checks real answers against `/openapi.json`: the operation (path template, method) and status
 * must be documented, and a JSON body must validate against the documented schema (ajv, JSON
 * Schema 2020-12 as OpenAPI 3.1 uses). Every checked operation is recorded, so a test can assert
 * that each documented operation was exercised.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/bindings/openapi/document.js';

type Obj = Record<string, any>;

export class OpenApiConformance {
  readonly doc: Obj;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** `METHOD path-template status` of every answer checked */
  readonly seen = new Set<string>();

  constructor(doc: Obj = openApiDocument('0.0.0')) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  }

  /** The documented template a concrete path matches (`/api/v1/tasks/abc` → `/api/v1/tasks/{taskId}`). */
  templateOf(path: string): string | undefined {
    const parts = path.split('?')[0]!.split('/');
    const matches = Object.keys(this.doc.paths).filter((t) => {
      const tp = t.split('/');
      return tp.length === parts.length && tp.every((seg, i) => (seg.startsWith('{') && seg.endsWith('}') ? parts[i] !== '' : seg === parts[i]));
    });
    // A literal segment beats a parameter (`/a2a/agents` before `/a2a/{agentId}`).
    return matches.sort((a, b) => ((b.match(/\{/g)?.length ?? 0) < (a.match(/\{/g)?.length ?? 0) ? 1 : -1))[0];
  }

  /** Throws unless the answer is documented and its body validates. Returns the parsed body. */
  async check(method: string, path: string, res: Response): Promise<unknown> {
    const template = this.templateOf(path);
    if (!template) throw new Error(`${method} ${path}: no documented path`);
    const op = this.doc.paths[template][method.toLowerCase()];
    if (!op) throw new Error(`${method} ${template}: method not documented`);
    const r = op.responses[String(res.status)];
    if (!r) throw new Error(`${method} ${template}: status ${res.status} not documented (${await res.clone().text()})`);
    this.seen.add(`${method.toUpperCase()} ${template} ${res.status}`);
    const text = await res.text();
    if (!r.content) return text;
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = r.content[type];
    if (!media) throw new Error(`${method} ${template} ${res.status}: content type ${type} not documented`);
    if (type !== 'application/json') return text;
    const body = JSON.parse(text) as unknown;
    const key = `${method} ${template} ${res.status}`;
    let v = this.compiled.get(key);
    if (!v) {
      // Refs point into the registered components document.
      const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"openapi#/components/'));
      v = this.ajv.compile(schema);
      this.compiled.set(key, v);
    }
    if (!v!(body)) throw new Error(`${key}: body does not match the document: ${this.ajv.errorsText(v!.errors)}\n${text.slice(0, 500)}`);
    return body;
  }

  /** Every documented `METHOD template`. */
  operations(): string[] {
    const out: string[] = [];
    for (const [p, item] of Object.entries(this.doc.paths as Obj)) for (const m of Object.keys(item)) out.push(`${m.toUpperCase()} ${p}`);
    return out;
  }
}

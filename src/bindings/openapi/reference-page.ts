/**
 * The API reference page at `/docs`: the OpenAPI document rendered to HTML on the server, from the
 * package itself (no CDN, no script), so it works offline and under a strict CSP.
 */
// Walks an OpenAPI document whose shape openApiDocument() guarantees; typed loosely inside only.
// biome-ignore lint/suspicious/noExplicitAny: see the line above
type Obj = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `#/components/schemas/Task` → a link to that schema's section; inline schemas → their type. */
function schemaLabel(s: Obj | undefined): string {
  if (!s) return '';
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').pop();
    return `<a href="#schema-${esc(name)}">${esc(name)}</a>`;
  }
  if (s.oneOf) return (s.oneOf as Obj[]).map(schemaLabel).join(' | ');
  if (s.allOf) return (s.allOf as Obj[]).map(schemaLabel).join(' & ');
  if (s.type === 'array') return `${schemaLabel(s.items)}[]`;
  if (s.enum) return (s.enum as unknown[]).map((v) => `<code>${esc(v)}</code>`).join(' | ');
  if (s.type === 'object' && s.properties) return `{ ${Object.keys(s.properties).map(esc).join(', ')} }`;
  return esc(Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any'));
}

function operation(path: string, method: string, op: Obj): string {
  const params = (op.parameters ?? []) as Obj[];
  const scopes = ((op.security ?? []) as Obj[]).flatMap((r) => Object.values(r).flat()).filter((v, i, a) => a.indexOf(v) === i);
  const rows = Object.entries((op.responses ?? {}) as Obj).map(([code, r]) => {
    const content = r.content ? Object.entries(r.content as Obj)[0] : undefined;
    return `<tr><td>${esc(code)}</td><td>${esc(r.description)}</td><td>${content ? schemaLabel(content[1].schema) : ''}</td></tr>`;
  });
  const reqSchema = op.requestBody?.content?.['application/json']?.schema;
  return `<section class="op" id="${esc(`${method}-${path}`)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>
${scopes.length ? `<p>Scope: ${scopes.map((s) => `<code>${esc(s)}</code>`).join(', ')}</p>` : '<p>No credential needed.</p>'}
${params.length ? `<table><tr><th>parameter</th><th>in</th><th>description</th></tr>${params.map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${esc(p.description)}</td></tr>`).join('')}</table>` : ''}
${reqSchema ? `<p>Body: ${schemaLabel(reqSchema)}</p>` : ''}
<table><tr><th>status</th><th>meaning</th><th>body</th></tr>${rows.join('')}</table>
</section>`;
}

function schemaSection(name: string, s: Obj): string {
  const props = Object.entries((s.properties ?? {}) as Obj);
  const required = new Set((s.required ?? []) as string[]);
  return `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3>${s.description ? `<p>${esc(s.description)}</p>` : ''}
${props.length ? `<table><tr><th>field</th><th>type</th></tr>${props.map(([k, v]) => `<tr><td><code>${esc(k)}</code>${required.has(k) ? ' *' : ''}</td><td>${schemaLabel(v as Obj)}</td></tr>`).join('')}</table>` : `<p>${schemaLabel(s)}</p>`}</section>`;
}

export function referencePage(document: Record<string, unknown>): string {
  const doc = document as Obj;
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths as Obj)) {
    for (const m of METHODS) {
      const op = (item as Obj)[m];
      if (!op) continue;
      const tag = (op.tags?.[0] as string) ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operation(path, m, op)]);
    }
  }
  const tags = (doc.tags as Obj[]).filter((t) => byTag.has(t.name));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
code{font:13px ui-monospace,monospace;background:#f3f4f6;padding:0 .2em}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}.op{border-top:1px solid #d0d7de;padding-top:.5rem}
.m{font:bold 12px ui-monospace,monospace;padding:.1rem .4rem;border-radius:3px;color:#fff;background:#57606a}.get{background:#0969da}.post{background:#1a7f37}.delete{background:#cf222e}.patch{background:#9a6700}</style>
</head><body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>${esc(doc.info.description)}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}).</p>
<nav><ul>${tags.map((t) => `<li><a href="#tag-${esc(t.name)}">${esc(t.name)}</a>: ${esc(t.description)}</li>`).join('')}<li><a href="#schemas">schemas</a></li></ul></nav>
${tags.map((t) => `<h2 id="tag-${esc(t.name)}">${esc(t.name)}</h2>${byTag.get(t.name)!.join('\n')}`).join('\n')}
<h2 id="schemas">schemas</h2>${Object.entries(doc.components.schemas as Obj)
    .map(([n, s]) => schemaSection(n, s as Obj))
    .join('\n')}
</body></html>`;
}

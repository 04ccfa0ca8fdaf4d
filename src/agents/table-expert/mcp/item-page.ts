/**
 * The page a Table Expert item `url` opens (`GET /a2a/{agentId}/items/{id}`): what `fetch` returns,
 * as a small HTML page for people following a citation, or as JSON when asked for. Deep-research
 * clients need the `url` to be real and to show the item; nothing here is interactive.
 */
import type { AgentPage, AgentPageRequest } from '../../sdk/mcp-tools.js';
import type { TableExpert } from '../skills.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `req.usecases`: the usecases the caller may see (src/core/authz); an item outside them is not found. */
export async function renderItem(expert: TableExpert, id: string, req: AgentPageRequest): Promise<AgentPage> {
  const { accept, agentName } = req;
  const scope = req.usecases ? { usecases: req.usecases } : undefined;
  const wantsJson = (accept ?? '').includes('application/json') && !(accept ?? '').includes('text/html');
  try {
    const item = await expert.fetch({ id }, scope ? { scope } : {});
    if (wantsJson) return { status: 200, contentType: 'application/json', body: JSON.stringify({ id: item.id, kind: item.kind, title: item.title, text: item.text, data: item.data }) };
    const body =
      `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(item.title)} · ${escapeHtml(agentName)}</title>` +
      '<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}</style></head>' +
      `<body><p>${escapeHtml(agentName)} · ${escapeHtml(item.kind)} <code>${escapeHtml(item.id)}</code></p><h1>${escapeHtml(item.title)}</h1><pre>${escapeHtml(item.text)}</pre></body></html>`;
    return { status: 200, contentType: 'text/html; charset=utf-8', body };
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const notFound = e?.name === 'TableExpertError' && e.code === 'not_found';
    const status = notFound ? 404 : 500;
    const message = notFound ? `Nothing has the id "${id}".` : 'The item could not be shown.';
    if (wantsJson) return { status, contentType: 'application/json', body: JSON.stringify({ error: message }) };
    return { status, contentType: 'text/html; charset=utf-8', body: `<!doctype html><html><head><meta charset="utf-8"><title>Not found</title></head><body><p>${escapeHtml(message)}</p></body></html>` };
  }
}

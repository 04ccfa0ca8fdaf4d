/**
 * The HTML pages Agentport serves (login, consent, OAuth errors, the page at `/`): escaping, the
 * one stylesheet, and the frame they share, so every page looks like the same product. No script
 * anywhere: the pages' CSP forbids it; the stylesheet is inline (style-src 'unsafe-inline').
 */

/** Text and attribute values in our HTML pages: the five characters that matter, as entities. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Headers of every page: not cached, not framed, no script, no sniffing. */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // No form-action: browsers apply it to the redirect back to the client after consent.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
} as const;

export const PAGE_STYLE = [
  ':root{--ink:#1d2433;--muted:#5b6475;--line:#dfe3ea;--accent:#2f5bd3;--panel:#f5f7fb;color-scheme:light}',
  'body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5}',
  'body.wide{max-width:52rem}',
  'header.brand{display:flex;align-items:baseline;gap:.6rem;border-bottom:3px solid var(--accent);padding-bottom:.4rem;margin-bottom:1.5rem}',
  'header.brand strong{font-size:1.35rem;letter-spacing:.01em}header.brand span{color:var(--muted);font-size:.9rem}',
  'h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}',
  'a{color:var(--accent)}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;background:var(--panel);padding:.05rem .3rem;border-radius:3px}',
  'pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem;overflow-x:auto}pre code{background:none;padding:0;user-select:all}',
  'label{display:block;margin-top:1rem}input{display:block;width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box;border:1px solid #b9c0cc;border-radius:4px}',
  'button{margin-top:1.25rem;padding:.5rem 1.25rem;font-size:1rem;margin-right:.5rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:#fff}',
  'button[value=deny]{background:#fff;color:var(--accent)}',
  '.error{color:#b00020;border-left:4px solid #b00020;padding:.4rem .8rem;background:#fdf1f3}',
  'table{border-collapse:collapse;width:100%}td a{white-space:nowrap}td,th{border-bottom:1px solid var(--line);padding:.35rem .4rem;text-align:left;vertical-align:top}',
  '.muted{color:var(--muted)}footer{margin-top:2.5rem;color:var(--muted);font-size:.9rem}',
].join('');

/** A complete page: title, the brand header, the body. `wide` for pages with tables and commands. */
export function htmlPage(title: string, body: string, o: { wide?: boolean } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Agentport</title><style>${PAGE_STYLE}</style></head><body${o.wide ? ' class="wide"' : ''}><header class="brand"><strong>Agentport</strong><span>one front door for AI agents</span></header><main>${body}</main></body></html>`;
}

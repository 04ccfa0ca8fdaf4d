/**
 * The page at `/`: a browser (Accept: text/html) gets what this server is, its agents with their
 * cards, the MCP URL and how to connect ChatGPT, Claude, Claude Code and the MCP Inspector; an API
 * client gets the same facts as JSON. Both are anonymous views: only agents an anonymous caller
 * may discover (src/core/authz) are listed, so a hidden agent is never named here.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml as e, htmlPage, PAGE_HEADERS } from '../../auth/oauth/html.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import { ANONYMOUS } from '../../core/authz/principal.js';
import { CONNECT_CLIENTS, connectGuide, type ConnectTarget } from './connect-steps.js';

export interface LandingPageDeps {
  registry: AgentRegistry;
  policy?: AuthorizationPolicy;
  publicUrl: () => string;
  version: string;
  authRequired: boolean;
  oauth: boolean;
  /** the web console's URL, once there is one */
  consoleUrl?: () => string | undefined;
}

interface AgentEntry {
  id: string;
  name: string;
  description: string;
  url: string;
  cardUrl: string;
  primary: boolean;
}

/** The server's description of itself, for both representations. */
export function landingFacts(d: LandingPageDeps) {
  const baseUrl = d.publicUrl().replace(/\/+$/, '');
  const agents: AgentEntry[] = d.registry
    .list()
    .filter((a) => !d.policy || d.policy.canSeeAgent(ANONYMOUS, a.id))
    .map((a) => ({ id: a.id, name: a.publicCard.name, description: a.publicCard.description, url: a.baseUrl, cardUrl: `${a.baseUrl}/.well-known/agent-card.json`, primary: a.id === d.registry.primaryId }));
  const consoleUrl = d.consoleUrl?.();
  return {
    name: 'Agentport',
    version: d.version,
    agents,
    mcp: { url: `${baseUrl}/mcp` },
    auth: { required: d.authRequired, oauth: d.oauth },
    links: {
      agents: `${baseUrl}/api/v1/agents`,
      primaryCard: `${baseUrl}/.well-known/agent-card.json`,
      health: `${baseUrl}/healthz`,
      ready: `${baseUrl}/readyz`,
      ...(d.oauth ? { oauthMetadata: `${baseUrl}/.well-known/oauth-authorization-server` } : {}),
      ...(consoleUrl ? { console: consoleUrl } : {}),
    },
  };
}

/**
 * The Copy buttons: shown only when this script runs (without it the blocks stay selectable), each
 * copies the block before it; where the Clipboard API is not offered (plain http on a host other
 * than localhost is not a secure context) the block is selected for Ctrl+C instead.
 */
const COPY_SCRIPT = `for (const b of document.querySelectorAll('button.copy')) {
  b.hidden = false;
  b.addEventListener('click', () => {
    const code = b.parentElement.querySelector('code');
    const said = (t) => { b.textContent = t; setTimeout(() => { b.textContent = 'Copy'; }, 2000); };
    const select = () => { getSelection().selectAllChildren(code); said('Selected: press Ctrl+C'); };
    if (navigator.clipboard && isSecureContext) navigator.clipboard.writeText(code.textContent).then(() => said('Copied'), select);
    else select();
  });
}`;

/** The page's CSP: the pages' own, plus exactly this one inline script (by its hash). */
const LANDING_CSP = `${PAGE_HEADERS['Content-Security-Policy']}; script-src 'sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}'`;

/** Long commands wrap instead of running off a phone's screen; the Copy button sits at the block's top right. */
const LANDING_STYLE =
  '.snippet{position:relative}.snippet pre{white-space:pre-wrap;overflow-wrap:anywhere;padding-right:4.5rem}.snippet button.copy{position:absolute;top:.35rem;right:.35rem;margin:0;padding:.15rem .5rem;font-size:.8rem;background:#fff;color:var(--accent)}td{overflow-wrap:anywhere}';

/** A command or URL to copy: a wrapped block with its (script-shown) Copy button. */
function snippet(code: string, id?: string): string {
  return `<div class="snippet"><pre><code${id ? ` id="${id}"` : ''}>${e(code)}</code></pre><button type="button" class="copy" hidden>Copy</button></div>`;
}

/** A browser asks for HTML before JSON; curl (`*\/*`) and API clients do not ask for HTML at all. */
function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.search(/(^|,)\s*text\/html\s*(;|,|$)/i);
  const json = accept.search(/(^|,)\s*application\/json\s*(;|,|$)/i);
  return html >= 0 && (json < 0 || html < json);
}

/** What the connect steps name: this server's URLs, its sign-in, the agent an A2A example talks to. */
function connectTargetOf(f: ReturnType<typeof landingFacts>): ConnectTarget {
  return {
    baseUrl: f.links.health.replace(/\/healthz$/, ''),
    mcpUrl: f.mcp.url,
    oauth: f.auth.oauth,
    authRequired: f.auth.required,
    ...(f.agents[0] ? { agent: f.agents.find((a) => a.primary) ?? f.agents[0] } : {}),
  };
}

function renderHtml(f: ReturnType<typeof landingFacts>): string {
  const target = connectTargetOf(f);
  const agents = f.agents.length
    ? `<table><thead><tr><th>Agent</th><th>What it does</th><th>Card</th></tr></thead><tbody>${f.agents
        .map(
          (a) =>
            `<tr><td><strong>${e(a.name)}</strong><br><code>${e(a.id)}</code>${a.primary ? ' <span class="muted">(primary)</span>' : ''}</td><td>${e(a.description)}</td><td><a href="${e(a.cardUrl)}">agent card</a></td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p class="muted">No public agents. Agents hidden from anonymous callers are listed at <code>/api/v1/agents</code> with a credential that may see them.</p>';
  const guides = CONNECT_CLIENTS.map((c) => {
    const g = connectGuide(c, target);
    const steps = g.steps.map((s) => `<li>${e(s.text)}${s.code ? snippet(s.code) : ''}</li>`).join('');
    return `<section id="connect-${c}"><h3>${e(g.title)}</h3><ol>${steps}</ol></section>`;
  }).join('');
  const auth = !f.auth.required
    ? 'Authentication is <strong>off</strong> on this server.'
    : f.auth.oauth
      ? 'Clients sign in with OAuth 2.1 (they discover it from the MCP URL); scripts use an API key (<code>X-API-Key</code>).'
      : 'Callers need an API key (<code>X-API-Key</code>) or a bearer token.';
  const links = [
    ['Agents (JSON)', f.links.agents],
    ['Primary agent card', f.links.primaryCard],
    ['Health', f.links.health],
    ['Readiness', f.links.ready],
    ...(f.links.oauthMetadata ? [['OAuth metadata', f.links.oauthMetadata]] : []),
    ...(f.links.console ? [['Console', f.links.console]] : []),
  ] as const;
  return htmlPage(
    'Agentport',
    `<h1>Agents on this server</h1>
<p>This is an <strong>Agentport</strong> ${e(f.version)} server. It hosts AI agents and serves each one over A2A v1.0 (JSON-RPC, HTTP+JSON, gRPC) and as MCP tools. ${auth}</p>
${agents}
<h2>MCP</h2>
<p>Every agent is a set of MCP tools at one URL:</p>
${snippet(f.mcp.url, 'mcp-url')}
<h2>Connect</h2>
<p class="muted">The same steps in a terminal: <code>agentport connect chatgpt|claude|claude-code|inspector|a2a --url ${e(target.baseUrl)}</code></p>
${guides}
<h2>More</h2>
<ul>${links.map(([label, href]) => `<li><a href="${e(href)}">${e(label)}</a> <code>${e(new URL(href).pathname)}</code></li>`).join('')}</ul>
<footer>Documentation: <code>docs/</code> in the Agentport package — <code>docs/mcp.md</code>, <code>docs/auth.md</code>, <code>docs/cli.md</code>.</footer>
<style>${LANDING_STYLE}</style>
<script>${COPY_SCRIPT}</script>`,
    { wide: true },
  );
}

/** Registers `GET /` (and HEAD) on the Fastify app. */
export function landingPage(d: LandingPageDeps) {
  return async (app: FastifyInstance) => {
    app.get('/', (req: FastifyRequest, reply: FastifyReply) => {
      const facts = landingFacts(d);
      reply.header('Vary', 'Accept');
      if (wantsHtml(req.headers.accept)) return reply.headers({ ...PAGE_HEADERS, 'Content-Security-Policy': LANDING_CSP, 'Cache-Control': 'no-cache' }).send(renderHtml(facts));
      // The JSON has the connect steps too (the console's Connect page shows them).
      const target = connectTargetOf(facts);
      return reply.header('Cache-Control', 'no-cache').send({ ...facts, connect: CONNECT_CLIENTS.map((c) => connectGuide(c, target)) });
    });
  };
}

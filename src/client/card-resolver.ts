/**
 * Finds and fetches agent cards, with an RFC 9111 cache: a card is reused while `Cache-Control:
 * max-age` says it is fresh, then revalidated with `If-None-Match` / `If-Modified-Since`; a 304
 * keeps the cached card. Cards are requested with `A2A-Version: 1.0`, because servers that also
 * serve v0.3 (a2a-js) answer a header-less request with the v0.3 card (digest §11); a v0.3 card
 * that still comes back is read as a v1.0 card with v0.3 interfaces.
 */
import type { AgentCard } from '../protocol/a2a/types.js';
import { AgentCardError, networkError } from './errors.js';
import { lowerKeys } from './http.js';
import { asAgentCard } from './responses.js';
import { agentCardFromV03, isV03Card } from './v03/card.js';

export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';
/** the v0.2 path, still served by many agents */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

export interface ResolvedCard {
  card: AgentCard;
  /** where it was fetched from */
  url: string;
  /** the card's own wire version: v1.0, or a v0.3/v0.2 card read as v1.0 */
  cardVersion: '1.0' | '0.3';
  /** the card JSON as received (signatures are verified over this) */
  raw: unknown;
  etag?: string;
  lastModified?: string;
  /** true when the answer came from the cache (fresh, or revalidated with 304) */
  fromCache: boolean;
}

export interface CardResolverOptions {
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  timeoutMs?: number;
  now?: () => number;
}

interface CacheEntry {
  resolved: ResolvedCard;
  freshUntil: number;
}

function maxAgeMs(cacheControl: string | null): number {
  if (!cacheControl || /no-cache|no-store/i.test(cacheControl)) return 0;
  const m = /max-age=(\d+)/i.exec(cacheControl);
  return m ? Number(m[1]) * 1000 : 0;
}

/**
 * The URLs to try for what a user typed: a URL ending in `.json` is the card itself; an agent URL
 * with a path has its card beneath it (Agentport serves one per agent at `/a2a/{id}/.well-known/…`),
 * then the v0.2 name there; an origin has them at the root. A path is never swapped for the root:
 * a mistyped agent path must fail, not show another agent's card.
 */
export function cardUrlCandidates(input: string): string[] {
  const u = new URL(input);
  if (u.pathname.endsWith('.json')) return [u.href];
  const base = `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  return [`${base}${WELL_KNOWN_CARD_PATH}`, `${base}${LEGACY_CARD_PATH}`];
}

export class CardResolver {
  private readonly cache = new Map<string, CacheEntry>();
  /** requests actually sent, and how many were answered 304 (for callers that want to observe caching) */
  readonly stats = { requests: 0, notModified: 0 };

  constructor(private readonly opts: CardResolverOptions = {}) {}

  /** The card for `input` (an agent URL or a card URL). `revalidate` skips the freshness shortcut. */
  async resolve(input: string, o: { revalidate?: boolean } = {}): Promise<ResolvedCard> {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new AgentCardError(`not a URL: ${input}`, input);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AgentCardError(`not an http(s) URL: ${input}`, input);
    const missing: AgentCardError[] = [];
    for (const candidate of cardUrlCandidates(url.href)) {
      try {
        return await this.fetchCard(candidate, o.revalidate === true);
      } catch (err) {
        if (!(err instanceof AgentCardError) || err.status !== 404) throw err;
        missing.push(err);
      }
    }
    // The v1.0 path is what failed first and what matters; the v0.2 name is a fallback, so it is
    // named as also tried, not reported as the place the card was looked for.
    const [first, ...others] = missing;
    if (!first) throw new AgentCardError(`no agent card found at ${input}`, input);
    const also = others.length ? `; also tried ${others.map((e) => e.url).join(', ')}` : '';
    throw new AgentCardError(`${first.message}${also}`, first.url, { status: 404 });
  }

  private async fetchCard(url: string, revalidate: boolean): Promise<ResolvedCard> {
    const now = (this.opts.now ?? Date.now)();
    const cached = this.cache.get(url);
    if (cached && !revalidate && now < cached.freshUntil) return { ...cached.resolved, fromCache: true };
    const headers: Record<string, string> = { accept: 'application/json', 'a2a-version': '1.0', ...lowerKeys(this.opts.headers ?? {}) };
    if (cached?.resolved.etag) headers['if-none-match'] = cached.resolved.etag;
    if (cached?.resolved.lastModified) headers['if-modified-since'] = cached.resolved.lastModified;
    let res: Response;
    try {
      this.stats.requests++;
      res = await (this.opts.fetch ?? fetch)(url, { headers, signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000) });
    } catch (err) {
      throw new AgentCardError(networkError(url, err).message, url, { cause: err });
    }
    if (res.status === 304 && cached) {
      this.stats.notModified++;
      await res.body?.cancel().catch(() => {});
      cached.freshUntil = now + maxAgeMs(res.headers.get('cache-control'));
      return { ...cached.resolved, fromCache: true };
    }
    if (!res.ok) {
      const said = await serverErrorMessage(res);
      throw new AgentCardError(`${url} answered HTTP ${res.status}${said ? `: ${said}` : ''}`, url, { status: res.status });
    }
    let raw: unknown;
    try {
      raw = await res.json();
    } catch (err) {
      throw new AgentCardError(`${url} did not return JSON`, url, { cause: err });
    }
    let card: AgentCard;
    let cardVersion: '1.0' | '0.3' = '1.0';
    try {
      if (isV03Card(raw)) {
        card = agentCardFromV03(raw);
        cardVersion = '0.3';
      } else card = asAgentCard(raw);
    } catch (err) {
      throw new AgentCardError(`${url} is not an agent card: ${(err as Error).message}`, url, { cause: err });
    }
    const resolved: ResolvedCard = {
      card,
      url,
      cardVersion,
      raw,
      fromCache: false,
      ...(res.headers.get('etag') ? { etag: res.headers.get('etag')! } : {}),
      ...(res.headers.get('last-modified') ? { lastModified: res.headers.get('last-modified')! } : {}),
    };
    this.cache.set(url, { resolved, freshUntil: now + maxAgeMs(res.headers.get('cache-control')) });
    return resolved;
  }
}

/**
 * What the server said in an error body (A2A HTTP+JSON `error.message`, or a top-level `message`),
 * so "No agent 'ech' here; the agents here are: echo, …" reaches the user. At most 4 KiB read,
 * one line, printable characters only: it comes from a server we do not trust.
 */
async function serverErrorMessage(res: Response): Promise<string | undefined> {
  if (!/json/i.test(res.headers.get('content-type') ?? '')) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  try {
    const reader = res.body?.getReader();
    if (!reader) return undefined;
    let text = '';
    const decoder = new TextDecoder();
    while (text.length < 4096) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => {});
    const body = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = typeof body.error?.message === 'string' ? body.error.message : typeof body.message === 'string' ? body.message : undefined;
    // eslint-disable-next-line no-control-regex
    return message?.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 300);
  } catch {
    return undefined;
  }
}

/**
 * The discovery routes: each agent's card (`/.well-known/agent-card.json`, `/a2a/{id}/…`,
 * `/api/v1/agents/{id}/card`, v0.3 at `agent.json`), the registry listing (`/api/v1/agents`) and
 * the JWKS that verifies signed cards. Hidden agents look exactly like missing ones (core/authz).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import { admitToAgentPath } from '../../core/authz/agent-lookup.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import { ANONYMOUS, type Principal } from '../../core/authz/principal.js';
import type { KeyStore } from '../../core/keys/key-store.js';
import { cardRepresentation, conditionalCardResponse } from '../../protocol/a2a/card/card-http.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { cardVersionFor, v03CardOf } from '../a2a-legacy/v03/cards.js';
import { sendError } from '../management/admin-guard.js';
import { novaedenAgentCards } from '../novaeden/novaeden-agent-list.js';
import { errorReply } from '../routes/error-reply.js';
import { routeCaller } from '../routes/route-caller.js';

export interface CardRoutesDeps {
  registry: AgentRegistry;
  auth: Authenticator;
  policy: AuthorizationPolicy | undefined;
  keys: KeyStore | undefined;
  /** cards.maxAgeSeconds */
  cardMaxAge: number;
}

export function addCardRoutes<Log extends FastifyBaseLogger>(app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Log>, d: CardRoutesDeps): void {
  const serveCard = cardServer(d);
  app.get('/.well-known/agent-card.json', (req, reply) => serveCard(req, reply, d.registry.primaryId));
  app.get<{ Params: { agentId: string } }>('/a2a/:agentId/.well-known/agent-card.json', (req, reply) => serveCard(req, reply, req.params.agentId));
  app.get('/.well-known/agent.json', (req, reply) => serveCard(req, reply, d.registry.primaryId, 'agent.json'));
  app.get<{ Params: { agentId: string } }>('/a2a/:agentId/.well-known/agent.json', (req, reply) => serveCard(req, reply, req.params.agentId, 'agent.json'));
  app.get('/api/v1/agents', (req, reply) => listAgents(d, req, reply));
  app.get<{ Params: { id: string } }>('/api/v1/agents/:id/card', (req, reply) => serveCard(req, reply, req.params.id));
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return d.keys ? d.keys.jwks() : { keys: [] };
  });
}

type CardPath = 'agent-card.json' | 'agent.json';

/** An agent's card, negotiated by `A2A-Version` (cardVersionFor); `agent.json` is v0.3. */
function cardServer(d: CardRoutesDeps) {
  const sendCard = (req: FastifyRequest, reply: FastifyReply, card: object, scope: 'public' | 'private', vary?: string[]) => {
    const r = conditionalCardResponse(req.headers, cardRepresentation(card), { maxAgeSeconds: d.cardMaxAge, cacheScope: scope, vary });
    reply.code(r.status).headers(r.headers);
    return reply.send(r.body ?? '');
  };
  return async (req: FastifyRequest, reply: FastifyReply, agentId: string, path: CardPath = 'agent-card.json') => {
    // A hidden agent's card is read with a2a:discover; to anyone else (a refused credential too) it does not exist.
    const admitted = await admitToAgentPath(d.registry, d.policy, agentId, 'a2a', () => routeCaller(d.auth, req.raw), { publicDocument: true });
    if (admitted.unknown) return errorReply(reply, new A2AError('TaskNotFound', admitted.message));
    const agent = d.registry.get(agentId)!;
    const hidden = d.policy !== undefined && !d.policy.isPublicAgent(agentId);
    const cacheScope = hidden ? 'private' : 'public';
    // The v0.2 path is read by v0.3-era clients only, whatever version they announce (a2a-js 1.x
    // `legacyCompat` fetches it with `A2A-Version: 1.0`), so it always has the v0.3 shape.
    if (path === 'agent.json') return sendCard(req, reply, v03CardOf(agent.publicCard), cacheScope);
    const version = cardVersionFor(req.headers['a2a-version']);
    const card = version === 'both' ? (agent.headerlessCard ?? agent.publicCard) : version === '0.3' ? v03CardOf(agent.publicCard) : agent.publicCard;
    return sendCard(req, reply, card, cacheScope, ['A2A-Version']);
  };
}

/** `GET /api/v1/agents`: hidden agents are listed only to callers who may see them (a2a:discover). */
async function listAgents(d: CardRoutesDeps, req: FastifyRequest, reply: FastifyReply) {
  const principal = d.policy ? await callerOf(d, req, reply) : ANONYMOUS;
  if (!principal) return reply;
  const visible = d.registry.list().filter((a) => !d.policy || d.policy.canSeeAgent(principal, a.id));
  // Per caller whenever authorization is on: caching only filtered answers would tell that something was filtered.
  if (d.policy?.enforcing || principal.authenticated) reply.header('Cache-Control', 'private, no-store');
  // `?view=cards`: the replaced service's answer, a list of cards (src/bindings/novaeden/).
  if ((req.query as { view?: string }).view === 'cards') return novaedenAgentCards(d.registry, d.policy, principal);
  return {
    agents: visible.map((a) => ({
      id: a.id,
      name: a.publicCard.name,
      description: a.publicCard.description,
      url: a.baseUrl,
      cardUrl: `${a.baseUrl}/.well-known/agent-card.json`,
      primary: a.id === d.registry.primaryId,
    })),
  };
}

/** The caller of a discovery route; a refused credential gets its 401 here (undefined returned). */
async function callerOf(d: CardRoutesDeps, req: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> {
  try {
    return await routeCaller(d.auth, req.raw);
  } catch (e) {
    const err = e instanceof A2AError ? e : new A2AError('Unauthenticated');
    if (err.kind === 'Unauthenticated') reply.header('WWW-Authenticate', d.auth.challenge(err, { scope: 'a2a:discover' }));
    sendError(reply, err);
    return undefined;
  }
}

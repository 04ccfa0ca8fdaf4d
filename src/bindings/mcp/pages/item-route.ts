/**
 * `GET /a2a/{agentId}/items/{id}`: the pages an agent contributes (agent-pages.ts), behind the MCP
 * face's admission (the hidden-agent rule, `use-mcp`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit, isAnswer, type AdmissionDeps, type PrincipalOf } from '../admission/admission.js';
import { serveAgentPage, servesPages } from './agent-pages.js';
import { rpcError, sendAnswer } from '../answer.js';
import { MCP_CODE } from '../mcp-errors.js';

export async function serveItem(d: AdmissionDeps, req: IncomingMessage, res: ServerResponse, agentId: string, itemId: string, principalOf: PrincipalOf): Promise<void> {
  const agent = d.registry.get(agentId)!;
  if (req.method !== 'GET' || !servesPages(agent)) return sendAnswer(res, rpcError(404, MCP_CODE.MethodNotFound, 'No such page'));
  const principal = await admit(d, agentId, principalOf);
  if (isAnswer(principal)) return sendAnswer(res, principal);
  await serveAgentPage(res, agent, itemId, req.headers.accept, d.policy?.usecases(principal));
}

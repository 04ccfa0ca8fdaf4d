/** One JSON-RPC call of an older wire version, as the JSON-RPC binding decoded its envelope. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/authz/principal.js';
import type { Id } from '../a2a-jsonrpc/reply.js';

export interface LegacyCall<Method extends string = string> {
  req: IncomingMessage;
  res: ServerResponse;
  id: Id;
  method: Method;
  /** the envelope's params, not yet checked */
  params: unknown;
  /** the agent of the base path; undefined on the shared `/a2a` endpoint */
  routeAgentId: string | undefined;
  defaultAgentId: string;
  principal: Principal;
  /** called just before a stream's headers are sent */
  beforeStream: (() => void) | undefined;
}

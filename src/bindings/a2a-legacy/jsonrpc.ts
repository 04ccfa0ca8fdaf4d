/**
 * Which older version a JSON-RPC call is in, for calls that name no version or 0.3 and use a slash
 * method (§3.6.2: no A2A-Version means v0.3; v0.1 clients sent none either). v0.1 methods have
 * names of their own (tasks/send, …) except three it shares with v0.3 by name and params
 * (tasks/get|cancel|resubscribe): those go to v0.3 first, and to v0.1 when the id is no task
 * there but may be one a v0.1 client named (src/protocol/a2a-v01/task-ids.ts). The v0.1 call runs
 * with its own permission and nothing else: a probe (GetTask) would need a2a:discover, and its
 * refusal would escape the v0.3 handler (D5). Neither finding it answers TaskNotFound, in the same
 * words.
 */
import type { A2AHandler } from '../../core/a2a-handler.js';
import { A2AError } from '../../protocol/a2a/errors.js';
import { isV01OnlyMethod, isV01SharedMethod } from '../../protocol/a2a-v01/requests.js';
import { isV03Method } from '../../protocol/a2a-v03/requests.js';
import { isObject } from '../../protocol/a2a-v03/fields.js';
import type { JsonRpcReply } from '../a2a-jsonrpc/reply.js';
import type { LegacyCall } from './legacy-call.js';
import { handleV01Call } from './v01/jsonrpc.js';
import { handleV03Call, jsonRpcErrorV03 } from './v03/jsonrpc.js';

export interface LegacyCallOptions {
  handler: A2AHandler;
  keepAliveMs: number;
  log?: { error(obj: object, msg?: string): void };
}

/** A slash method from a client that sent no A2A-Version, or 0.3. */
export function handleLegacyCall(o: LegacyCallOptions, call: LegacyCall): Promise<JsonRpcReply | undefined> {
  const { id, method } = call;
  if (isV01OnlyMethod(method)) return handleV01Call(o, { ...call, method });
  if (isV03Method(method)) {
    const asV01 = isV01SharedMethod(method) && hasTaskId(call.params) ? () => handleV01Call(o, { ...call, method }) : undefined;
    return handleV03Call(o, { ...call, method }, asV01);
  }
  // An older client's error in the shape it reads.
  const body = jsonRpcErrorV03(id, new A2AError('MethodNotFound', `Method '${method}' is not an A2A v0.3 or v0.1 method`));
  return Promise.resolve({ status: 200, headers: { 'Content-Type': 'application/json' }, body });
}

const hasTaskId = (params: unknown): boolean => isObject(params) && typeof params.id === 'string' && params.id !== '';

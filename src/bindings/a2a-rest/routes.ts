/**
 * HTTP+JSON request decoding shared by the v1.0 binding (./rest-binding.ts) and the v0.3 one
 * (src/bindings/a2a-legacy/v03/rest.ts): the operation a method and path name, the JSON body, and
 * typed query parameters.
 */
import { A2AError } from '../../protocol/a2a/errors.js';
import * as v from '../../protocol/a2a/validate.js';

export type Route =
  | { op: 'send' | 'stream' | 'list' | 'extendedCard' }
  | { op: 'get' | 'cancel' | 'subscribe'; id: string }
  | { op: 'pushCreate' | 'pushList'; taskId: string }
  | { op: 'pushGet' | 'pushDelete'; taskId: string; id: string };

export function matchRoute(method: string, s: string[]): Route {
  const wrongVerb = () => new A2AError('MethodNotFound', `${method} is not allowed on this path`);
  if (s.length === 1) {
    if (s[0] === 'message:send') {
      if (method !== 'POST') throw wrongVerb();
      return { op: 'send' };
    }
    if (s[0] === 'message:stream') {
      if (method !== 'POST') throw wrongVerb();
      return { op: 'stream' };
    }
    if (s[0] === 'tasks') {
      if (method !== 'GET') throw wrongVerb();
      return { op: 'list' };
    }
    if (s[0] === 'extendedAgentCard') {
      if (method !== 'GET') throw wrongVerb();
      return { op: 'extendedCard' };
    }
  }
  const task = s[1];
  if (s[0] === 'tasks' && task !== undefined && task !== '') {
    if (s.length === 2) {
      const colon = task.lastIndexOf(':');
      const verb = colon >= 0 ? task.slice(colon + 1) : '';
      const id = colon >= 0 ? task.slice(0, colon) : task;
      if (verb === 'cancel') {
        if (method !== 'POST') throw wrongVerb();
        return { op: 'cancel', id };
      }
      // The proto binds GET, the spec's tables say POST: accept both.
      if (verb === 'subscribe') {
        if (method !== 'GET' && method !== 'POST') throw wrongVerb();
        return { op: 'subscribe', id };
      }
      if (colon < 0) {
        if (method !== 'GET') throw wrongVerb();
        return { op: 'get', id: task };
      }
    }
    if (s[2] === 'pushNotificationConfigs') {
      if (s.length === 3) {
        if (method === 'POST') return { op: 'pushCreate', taskId: task };
        if (method === 'GET') return { op: 'pushList', taskId: task };
        throw wrongVerb();
      }
      const config = s[3];
      if (s.length === 4 && config !== undefined && config !== '') {
        if (method === 'GET') return { op: 'pushGet', taskId: task, id: config };
        if (method === 'DELETE') return { op: 'pushDelete', taskId: task, id: config };
        throw wrongVerb();
      }
    }
  }
  throw new A2AError('MethodNotFound', 'No A2A operation at this path');
}

export function parseBody(body: string | undefined): Record<string, unknown> {
  if (body === undefined || body.trim() === '') throw new A2AError('InvalidRequest', 'A JSON request body is required');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new A2AError('ParseError');
  }
  if (!v.isObject(parsed)) throw new A2AError('InvalidRequest', 'The request body must be a JSON object');
  return parsed;
}

export function intOrRaw(s: string | null): unknown {
  if (s === null) return undefined;
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

/** Query strings carry strings only; convert the known integer and boolean fields. */
export function queryObject(q: URLSearchParams, ints: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, val] of q) {
    if (k === 'A2A-Version') continue;
    if (ints.includes(k)) o[k] = intOrRaw(val);
    else if (k === 'includeArtifacts') o[k] = val === 'true' ? true : val === 'false' ? false : val;
    else o[k] = val;
  }
  return o;
}

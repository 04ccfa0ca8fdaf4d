/**
 * INPUT_REQUIRED as an MRTR round (2026-07-28, basic/patterns/mrtr): the tool call answers
 * `resultType: "input_required"` with one form elicitation (the agent's question) and a signed
 * `requestState` naming the A2A task; the client's retry carries the answer and the state, and
 * the answer continues the same task through the core.
 *
 * The state is attacker-controlled on re-entry (spec server requirements 4–5), so it is sealed
 * with the SDK's HMAC-SHA256 codec: the payload (task, agent, tool, caller subject) is signed,
 * it expires, and the seal is bound to the caller (an HMAC tag of the subject), so a state minted
 * for one caller is refused for another; agent and tool are checked against the payload. The SDK verifies it before the handler runs and answers a bad
 * one with `-32602 "Invalid or expired requestState"` (`data.reason: invalid_request_state`); the
 * precise reason (`mac`, `expired`, `bind`, `malformed`) goes to the log only.
 */
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, inputRequired, inputResponse, type AuthInfo, type InputRequiredResult, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';

/** What a sealed `requestState` carries. Signed, not encrypted: the client can read it. */
export interface AgentTaskState {
  v: 1;
  taskId: string;
  contextId: string;
  agentId: string;
  tool: string;
  /** the caller's principal subject */
  sub: string;
  /** 'connect': the round asked the caller to connect an account (askToConnect); its task was canceled */
  step?: 'connect';
}

export const ANSWER_KEY = 'answer';
export const CONNECT_KEY = 'connect';

/** Human-paced: long enough to think, short enough that a leaked state goes stale. */
export const REQUEST_STATE_TTL_SECONDS = 900;

const CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

export type TaskStateCodec = RequestStateCodec<AgentTaskState>;

/**
 * The codec for one endpoint. `key` must be shared by every replica that may receive a retry;
 * without one, a per-process random key works only when the retry reaches the same process.
 */
export function createTaskStateCodec(opts: { key?: Uint8Array | string; ttlSeconds?: number; subjectOf: (authInfo: AuthInfo | undefined) => string }): TaskStateCodec {
  return createRequestStateCodec<AgentTaskState>({
    key: opts.key ?? randomBytes(32),
    ttlSeconds: opts.ttlSeconds ?? REQUEST_STATE_TTL_SECONDS,
    bind: (ctx) => `${ctx.mcpReq.method}\0${opts.subjectOf(ctx.http?.authInfo)}`,
  });
}

/**
 * A codec over keys every replica derives from the shared signing keys (KeyStore.derivedSecrets):
 * states are sealed with the first key and verified against each, so a retry may reach any
 * replica, and a state minted just before a key rotation still verifies. Keys are re-read at
 * most every `refreshMs`; a key's codec is built once.
 */
export function createSharedTaskStateCodec(opts: { keys: () => Promise<Uint8Array[]>; ttlSeconds?: number; refreshMs?: number; subjectOf: (authInfo: AuthInfo | undefined) => string }): TaskStateCodec {
  const refreshMs = opts.refreshMs ?? 30_000;
  const codecs = new Map<string, TaskStateCodec>();
  let current: { at: number; list: Promise<TaskStateCodec[]> } | undefined;
  const codecsNow = (): Promise<TaskStateCodec[]> => {
    if (current && Date.now() - current.at < refreshMs) return current.list;
    const list = opts.keys().then((keys) => {
      if (!keys.length) throw new Error('no key to seal requestStates with');
      return keys.map((key) => {
        const id = Buffer.from(key).toString('hex');
        let c = codecs.get(id);
        if (!c) codecs.set(id, (c = createTaskStateCodec({ key, subjectOf: opts.subjectOf, ...(opts.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}) })));
        return c;
      });
    });
    current = { at: Date.now(), list };
    list.catch(() => (current = undefined));
    return list;
  };
  return {
    mint: async (payload, ctx) => (await codecsNow())[0]!.mint(payload, ctx),
    verify: async (state, ctx) => {
      let first: unknown;
      for (const c of await codecsNow()) {
        try {
          return await c.verify(state, ctx);
        } catch (err) {
          // 'mac' under an older key is expected; any other reason (expired, bind) is the answer.
          first ??= err;
          if (!(err instanceof Error) || err.message !== 'mac') throw err;
        }
      }
      throw first ?? new Error('mac');
    },
  };
}

function declaredElicitation(ctx: ServerContext): { form?: unknown; url?: unknown } | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CAPABILITIES_META_KEY] as { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  return caps?.elicitation;
}

/** Whether this modern request's client can answer a form elicitation embedded in a result. */
export function clientTakesFormElicitation(ctx: ServerContext): boolean {
  const e = declaredElicitation(ctx);
  if (!e || typeof e !== 'object') return false;
  // 2025-06-18 shape `{}` means form; newer clients list the modes.
  return e.form !== undefined || e.url === undefined;
}

/** Whether this modern request's client declared URL-mode elicitation (`elicitation.url`). */
export function clientTakesUrlElicitation(ctx: ServerContext): boolean {
  const e = declaredElicitation(ctx);
  return typeof e === 'object' && e !== null && e.url !== undefined;
}

/**
 * The input_required result asking the caller to open the connect link (2026-07-28 URL mode: no
 * `elicitationId` on this era's wire; the sealed state is the correlation).
 */
export async function askToConnect(codec: TaskStateCodec, state: AgentTaskState, link: { url: string; message: string }, ctx: ServerContext): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: { [CONNECT_KEY]: inputRequired.elicitUrl({ url: link.url, message: link.message }) },
    requestState: await codec.mint({ ...state, step: 'connect' }, ctx),
  });
}

/** The input_required result asking the agent's question. */
export async function askForInput(codec: TaskStateCodec, state: AgentTaskState, question: string, ctx: ServerContext): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: {
      [ANSWER_KEY]: inputRequired.elicit({
        message: question,
        requestedSchema: {
          type: 'object',
          properties: { [ANSWER_KEY]: { type: 'string', title: 'Answer', description: 'Your reply to the agent.' } },
          required: [ANSWER_KEY],
        },
      }),
    },
    requestState: await codec.mint(state, ctx),
  });
}

export type Continuation =
  | { kind: 'none' }
  | { kind: 'answer'; state: AgentTaskState; text: string }
  | { kind: 'declined'; state: AgentTaskState; action: 'decline' | 'cancel' }
  | { kind: 'missing'; state: AgentTaskState }
  /** the retry after a connect round: run the call afresh (asks again if the user has not connected) */
  | { kind: 'connect-retry'; state: AgentTaskState }
  | { kind: 'connect-declined'; state: AgentTaskState };

/**
 * Reads a retry: the verified state (the SDK ran the codec's verify before the handler) and the
 * answer. A state that verifies but names another agent, tool or caller is refused here too.
 */
export function continuationOf(ctx: ServerContext, expect: { agentId: string; tool: string; sub: string }): Continuation | { kind: 'mismatch' } {
  const state = ctx.mcpReq.requestState<AgentTaskState | string>();
  if (state === undefined) return { kind: 'none' };
  if (typeof state !== 'object' || state === null || state.v !== 1) return { kind: 'mismatch' };
  if (state.agentId !== expect.agentId || state.tool !== expect.tool || state.sub !== expect.sub) return { kind: 'mismatch' };
  if (state.step === 'connect') {
    const c = inputResponse(ctx.mcpReq.inputResponses, CONNECT_KEY);
    return c.kind === 'elicit' && c.action !== 'accept' ? { kind: 'connect-declined', state } : { kind: 'connect-retry', state };
  }
  const r = inputResponse(ctx.mcpReq.inputResponses, ANSWER_KEY);
  if (r.kind !== 'elicit') return { kind: 'missing', state };
  if (r.action !== 'accept') return { kind: 'declined', state, action: r.action };
  const text = r.content?.[ANSWER_KEY];
  if (typeof text !== 'string' || text.trim() === '') return { kind: 'missing', state };
  return { kind: 'answer', state, text };
}

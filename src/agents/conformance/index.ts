/**
 * The conformance agent: the System Under Test contract of both official A2A conformance suites.
 *
 * - The TCK (github.com/a2aproject/a2a-tck, branch 1.0-dev, `scenarios/*.feature` +
 *   `docs/SUT_REQUIREMENTS.md`) chooses behaviour by the prefix of the message's `messageId`;
 *   every message is routed the same way, including follow-ups to an existing task (the TCK
 *   completes an INPUT_REQUIRED task by sending `tck-complete-task-…` with its `taskId`). It
 *   appends a session suffix and, in parametrized tests, `-<transport>`, so only prefixes are stable.
 * - ACTS, the newer A2A Conformance Test Suite (A2A repository, `docs/acts-specification.md` §11
 *   "SUT Behavior Contract", `tests/acts/*.acts.yaml`), generates messageIds (UUIDs) and chooses
 *   behaviour by the prefix of the *text of the first message part* (`tck-multi-turn start`). A
 *   follow-up of a multi-turn task carries plain text (`here is more input`, `done`), so it is
 *   routed by the task's first user message.
 *
 * A messageId prefix wins (a TCK message), then the first part's text, then (for a follow-up) the
 * task's first text. The server, not this agent, owns every protocol check (unknown task, terminal
 * task, versions, content types, push delivery, authentication); see docs/tck-notes.md.
 */
import { defineAgent, type AgentContext, type AgentDefinition, type Part } from '../sdk/index.js';

/** `test-resubscribe-message-id`: 2 × TCK_STREAMING_TIMEOUT (default 2 s), see SUT_REQUIREMENTS.md. */
export const DEFAULT_LONG_TASK_MS = 4_000;

/** Texts and parts the TCK compares byte for byte (tests/compatibility/core_operations/test_artifacts.py). */
export const TCK_TEXT = {
  completeTask: 'Hello from TCK',
  messageResponse: 'Direct message response',
  artifactText: 'Generated text content',
  rejected: 'rejected',
  stream001: 'Stream hello from TCK',
  stream003: 'Stream task lifecycle',
  streamOrdering: 'Ordered output',
  streamArtifactText: 'Streamed text content',
  chunk1: 'chunk-1 ',
  chunk2: 'chunk-2',
  inputRequired: 'Input required: send a follow-up message to this task.',
  unhandledPrefix: 'Unhandled messageId prefix: ',
} as const;

/** Texts of the ACTS behaviours (ACTS §11.2 and its example behaviours file). */
export const ACTS_TEXT = {
  streamed: 'Streamed content',
  longRunning: 'Long-running work done',
  multiTurnQuestion: 'More input needed: send more, or "done" to finish.',
  multiTurnDone: 'done',
  failure: 'Task failed as asked (tck-task-failure).',
  authRequired: 'Authentication required: send credentials in a follow-up message.',
} as const;

/** "tck" in base64: the bytes of the file artifact, as the reference SUTs send them. */
const FILE_PART: Part = { raw: 'dGNr', filename: 'output.txt', mediaType: 'text/plain' };
const FILE_URL_PART: Part = { url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' };
const DATA_PART: Part = { data: { key: 'value', count: 42 } };

type Scenario = (ctx: AgentContext) => void | Promise<void>;

export interface ConformanceAgentOptions {
  /** how long `test-resubscribe-message-id` stays WORKING; the TCK needs at least 4 s */
  longTaskMs?: number;
}

/** Working → one artifact → completed: the shape of every `tck-stream-*` scenario. */
function streamOneArtifact(parts: Part[]): Scenario {
  return (ctx) => {
    ctx.working();
    ctx.artifact(parts);
    ctx.complete();
  };
}

/** Working → one artifact sent as two chunks (append, lastChunk) → completed: TCK and ACTS alike. */
const streamTwoChunks: Scenario = (ctx) => {
  ctx.working();
  const artifactId = ctx.artifact([{ text: TCK_TEXT.chunk1 }], { append: false, lastChunk: false });
  ctx.artifact([{ text: TCK_TEXT.chunk2 }], { artifactId, append: true, lastChunk: true });
  ctx.complete();
};

/** One artifact then completed, no WORKING update: the unary artifact scenarios. */
function artifactThenComplete(parts: Part[]): Scenario {
  return (ctx) => {
    ctx.artifact(parts);
    ctx.complete();
  };
}

function scenarios(longTaskMs: number): Array<[prefix: string, run: Scenario]> {
  const table: Array<[string, Scenario]> = [
    // scenarios/core_operations.feature
    ['tck-complete-task', (ctx) => ctx.complete(TCK_TEXT.completeTask)],
    ['tck-artifact-text', artifactThenComplete([{ text: TCK_TEXT.artifactText }])],
    ['tck-artifact-file', artifactThenComplete([FILE_PART])],
    ['tck-artifact-file-url', artifactThenComplete([FILE_URL_PART])],
    ['tck-artifact-data', artifactThenComplete([DATA_PART])],
    ['tck-message-response', (ctx) => ctx.reply(TCK_TEXT.messageResponse)],
    ['tck-input-required', (ctx) => ctx.askInput(TCK_TEXT.inputRequired)],
    ['tck-reject-task', (ctx) => ctx.reject(TCK_TEXT.rejected)],
    // scenarios/streaming.feature (the agent cannot tell streaming from unary calls; it need not)
    ['tck-stream-001', streamOneArtifact([{ text: TCK_TEXT.stream001 }])],
    ['tck-stream-002', (ctx) => ctx.complete()],
    ['tck-stream-003', streamOneArtifact([{ text: TCK_TEXT.stream003 }])],
    ['tck-stream-ordering-001', streamOneArtifact([{ text: TCK_TEXT.streamOrdering }])],
    ['tck-stream-artifact-text', streamOneArtifact([{ text: TCK_TEXT.streamArtifactText }])],
    ['tck-stream-artifact-file', streamOneArtifact([FILE_PART])],
    ['tck-stream-artifact-chunked', streamTwoChunks],
    [
      'test-resubscribe-message-id',
      async (ctx) => {
        ctx.working();
        try {
          await ctx.sleep(longTaskMs);
        } catch (err) {
          // CancelTask aborted the run: the task service has already written CANCELED.
          if (ctx.signal.aborted) return;
          throw err;
        }
        ctx.complete();
      },
    ],
  ];
  // Longest prefix first, so that `tck-artifact-file-url` never runs as `tck-artifact-file`.
  return table.sort((a, b) => b[0].length - a[0].length);
}

/** Stays WORKING for `ms` (the run returns quietly when canceled), then completes with `then`. */
function workFor(ms: number, then: (ctx: AgentContext) => void): Scenario {
  return async (ctx) => {
    ctx.working();
    try {
      await ctx.sleep(ms);
    } catch (err) {
      // CancelTask aborted the run: the task service has already written CANCELED.
      if (ctx.signal.aborted) return;
      throw err;
    }
    then(ctx);
  };
}

/** How long `tck-cancel` waits to be canceled before it gives up and completes. */
const CANCEL_WAIT_MS = 10 * 60_000;

/** A multi-turn turn: `done` completes; anything else asks for more (ACTS CORE-MULTI-001/005). */
const multiTurn: Scenario = (ctx) => {
  if (ctx.task && firstText(ctx.message).trim().toLowerCase() === ACTS_TEXT.multiTurnDone) ctx.complete(ACTS_TEXT.multiTurnDone);
  else ctx.askInput(ACTS_TEXT.multiTurnQuestion);
};

/** ACTS §11.2's standard prefixes, matched against the first part's text. */
function actsBehaviours(longTaskMs: number): Array<[prefix: string, run: Scenario]> {
  const table: Array<[string, Scenario]> = [
    ['tck-complete-task', (ctx) => ctx.complete(TCK_TEXT.completeTask)],
    ['tck-input-required', (ctx) => ctx.askInput(TCK_TEXT.inputRequired)],
    ['tck-reject-task', (ctx) => ctx.reject(TCK_TEXT.rejected)],
    ['tck-message-response', (ctx) => ctx.reply(TCK_TEXT.messageResponse)],
    ['tck-artifact-text', artifactThenComplete([{ text: TCK_TEXT.artifactText }])],
    ['tck-artifact-file', artifactThenComplete([FILE_PART])],
    ['tck-artifact-file-url', artifactThenComplete([FILE_URL_PART])],
    ['tck-artifact-data', artifactThenComplete([DATA_PART])],
    // Polled every 2 s up to 15 times (CORE-EXEC-001); subscribed to while running (STREAM-SUB-001).
    ['tck-long-running', workFor(longTaskMs, (ctx) => (ctx.artifact([{ text: ACTS_TEXT.longRunning }]), ctx.complete()))],
    ['tck-multi-turn', multiTurn],
    ['tck-cancel', workFor(CANCEL_WAIT_MS, (ctx) => ctx.complete())],
    ['tck-stream-basic', streamOneArtifact([{ text: ACTS_TEXT.streamed }])],
    ['tck-stream-chunked', streamTwoChunks],
    [
      'tck-task-failure',
      (ctx) => {
        ctx.working();
        ctx.fail(ACTS_TEXT.failure);
      },
    ],
    ['tck-auth-required', (ctx) => ctx.requireAuth(ACTS_TEXT.authRequired)],
  ];
  return table.sort((a, b) => b[0].length - a[0].length);
}

/** The text of the message's first part ('' when it is not a text part). */
function firstText(message: { parts: readonly Part[] }): string {
  const first = message.parts[0] as { text?: unknown } | undefined;
  return typeof first?.text === 'string' ? first.text : '';
}

/** The first user message of a task's history, which an ACTS follow-up is routed by. */
function firstUserText(ctx: AgentContext): string {
  const first = ctx.task?.history?.find((m) => m.role === 'ROLE_USER');
  return first ? firstText(first) : '';
}

export function createConformanceAgent(opts: ConformanceAgentOptions = {}): AgentDefinition {
  const longTaskMs = Math.max(0, opts.longTaskMs ?? DEFAULT_LONG_TASK_MS);
  const table = scenarios(longTaskMs);
  const acts = actsBehaviours(longTaskMs);
  return defineAgent({
    card: {
      name: 'Agentport TCK Conformance Agent',
      description:
        'Implements the System Under Test contracts of the A2A TCK (behaviour by messageId prefix: tck-complete-task, tck-input-required, tck-message-response, tck-artifact-*, tck-stream-*, test-resubscribe-message-id) and of ACTS (behaviour by the first text part: tck-complete-task, tck-multi-turn, tck-long-running, tck-cancel, tck-stream-basic, tck-stream-chunked, tck-task-failure, tck-auth-required, …).',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: true },
      // `*/*`: the agent ignores content, and CORE-SEND-003 (TCK 1.0-dev) expects SendMessage with a
      // part of media type application/x-unsupported-tck-type to SUCCEED (docs/tck-notes.md).
      defaultInputModes: ['text/plain', 'application/json', '*/*'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [
        {
          id: 'tck',
          name: 'TCK Conformance',
          description: 'Handles A2A TCK and ACTS conformance test messages, routed by messageId prefix (TCK) or by the first text part (ACTS).',
          tags: ['tck', 'acts', 'conformance'],
          examples: ['messageId tck-complete-task-1: completes with "Hello from TCK"', 'text "tck-multi-turn start": INPUT_REQUIRED until a message "done"'],
        },
      ],
    },
    async execute(ctx) {
      const id = ctx.message.messageId;
      const match = table.find(([prefix]) => id.startsWith(prefix));
      if (match) {
        await match[1](ctx);
        return;
      }
      const text = firstText(ctx.message);
      const behaviour = acts.find(([prefix]) => text.startsWith(prefix)) ?? (ctx.task && firstUserText(ctx).startsWith('tck-multi-turn') ? ['tck-multi-turn', multiTurn] : undefined);
      if (behaviour) {
        await behaviour[1](ctx);
        return;
      }
      // Any other prefix: complete with a message, as the reference SUTs do (many TCK tests send
      // `tck-<test-name>-…` ids and only need a COMPLETED task back).
      ctx.complete(TCK_TEXT.unhandledPrefix + id);
    },
  });
}

export const conformanceAgent: AgentDefinition = createConformanceAgent();

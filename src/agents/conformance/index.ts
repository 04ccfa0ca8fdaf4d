/**
 * The conformance agent: the System Under Test contract of the official A2A TCK
 * (github.com/a2aproject/a2a-tck, branch 1.0-dev, `scenarios/*.feature` + `docs/SUT_REQUIREMENTS.md`).
 *
 * Behaviour is chosen by the prefix of the incoming message's `messageId`; every message is routed
 * the same way, including follow-ups to an existing task (the TCK completes an INPUT_REQUIRED task
 * by sending `tck-complete-task-…` with its `taskId`, and fills history with `tck-input-required-…`).
 * The TCK appends a session suffix and, in its parametrized tests, `-<transport>`, so only prefixes
 * are stable. The server, not this agent, owns every protocol check (unknown task, terminal task,
 * versions, content types, push delivery); see docs/tck-notes.md.
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
    [
      'tck-stream-artifact-chunked',
      (ctx) => {
        ctx.working();
        const artifactId = ctx.artifact([{ text: TCK_TEXT.chunk1 }], { append: false, lastChunk: false });
        ctx.artifact([{ text: TCK_TEXT.chunk2 }], { artifactId, append: true, lastChunk: true });
        ctx.complete();
      },
    ],
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

export function createConformanceAgent(opts: ConformanceAgentOptions = {}): AgentDefinition {
  const table = scenarios(Math.max(0, opts.longTaskMs ?? DEFAULT_LONG_TASK_MS));
  return defineAgent({
    card: {
      name: 'Agentport TCK Conformance Agent',
      description:
        'Implements the A2A TCK System Under Test contract: behaviour is selected by the messageId prefix of each message (tck-complete-task, tck-input-required, tck-message-response, tck-artifact-*, tck-stream-*, test-resubscribe-message-id).',
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
          description: 'Handles A2A TCK conformance test messages, routed by messageId prefix.',
          tags: ['tck', 'conformance'],
          examples: ['messageId tck-complete-task-1: completes with "Hello from TCK"'],
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
      // Any other prefix: complete with a message, as the reference SUTs do (many TCK tests send
      // `tck-<test-name>-…` ids and only need a COMPLETED task back).
      ctx.complete(TCK_TEXT.unhandledPrefix + id);
    },
  });
}

export const conformanceAgent: AgentDefinition = createConformanceAgent();

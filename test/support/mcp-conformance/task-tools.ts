/**
 * The MCP faces of the tasks-extension fixtures: their entries in `tools/list`, the synchronous
 * path for clients without the extension (through the SDK, as any tool), and the recognition of a
 * modern `tools/call` the fixture module answers itself (fixture-module.ts `fastPath`) with a task
 * handle (src/bindings/mcp/tasks/mcp-tasks.ts `startToolTask`), an MRTR round, or -32021 for a
 * `required` tool called by a client that did not declare the extension. Only when the fixture
 * agent is configured (task-agent.ts, as agent `mcp-conformance`).
 */
import { fromJsonSchema, type CallToolResult, type InputRequiredResult, type McpServer, type ServerContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import type { AgentToolArgs, AgentToolSpec } from '../../../src/bindings/mcp/tools/agent-tools.js';
import { MODERN_VERSIONS } from '../../../src/bindings/mcp/admission/lenient-edge.js';
import { declaresTasks, TASKS_EXTENSION } from '../../../src/bindings/mcp/tasks/mcp-tasks.js';
import { errorResult } from '../../../src/bindings/mcp/tools/tool-result.js';
import type { HeaderLookup } from '../../../src/bindings/mcp/tools/plain-tool-call.js';

/** The id the fixture agent must be configured under (its skills are the fixture tools). */
export const FIXTURE_AGENT_ID = 'mcp-conformance';

/** Fixture tool → whether a client must have declared the tasks extension to call it. */
export const FIXTURE_TASK_TOOLS: Record<string, { taskSupport: 'optional' | 'required'; description: string; inputSchema: Record<string, unknown> }> = {
  slow_compute: {
    taskSupport: 'optional',
    description: 'Sleeps `seconds` seconds, then returns a result (an A2A task; cancelable)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
  },
  failing_job: { taskSupport: 'required', description: 'Ends with a tool execution error after about a second', inputSchema: { type: 'object', properties: {} } },
  protocol_error_job: { taskSupport: 'optional', description: 'Crashes: the task fails with a protocol-level error', inputSchema: { type: 'object', properties: {} } },
  confirm_delete: {
    taskSupport: 'optional',
    description: 'Asks for confirmation (input_required), then reports the deletion',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
  },
  multi_input: { taskSupport: 'optional', description: 'Asks two questions at once; completes when both are answered', inputSchema: { type: 'object', properties: {} } },
  test_tool_with_task: {
    taskSupport: 'required',
    description: 'Asks for user_name in an MRTR round, then continues as a task whose result greets that name',
    inputSchema: { type: 'object', properties: {} },
  },
};

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The arguments an agent tool call carries for a fixture: its name as text, its arguments as data. */
export const fixtureToolArgs = (name: string, args: Record<string, unknown>): AgentToolArgs => ({ message: name, data: args });

export interface FixtureTaskCall {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
  /** the client declared the tasks extension (session or per request) */
  tasks: boolean;
  inputResponses?: Record<string, unknown>;
}

/**
 * A modern `tools/call` of a fixture task tool whose standard headers agree with the body, and
 * that the endpoint must answer itself: the client declared the extension, or the tool requires
 * it. Anything else (a legacy-era call, an optional tool without the extension, headers the SDK
 * must judge) is left to the SDK.
 */
export function fixtureTaskCallOf(body: unknown, headers: HeaderLookup): FixtureTaskCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const id = body.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string' || !Object.hasOwn(FIXTURE_TASK_TOOLS, params.name)) return undefined;
  const meta = params._meta;
  if (!isObject(meta) || !MODERN_VERSIONS.includes(meta[VERSION_KEY] as string) || headers.get('mcp-protocol-version') !== meta[VERSION_KEY]) return undefined;
  if (headers.get('mcp-method') !== 'tools/call' || headers.get('mcp-name')?.trim() !== params.name) return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  if (params.inputResponses !== undefined && !isObject(params.inputResponses)) return undefined;
  const tasks = declaresTasks(meta);
  if (!tasks && FIXTURE_TASK_TOOLS[params.name]!.taskSupport !== 'required') return undefined;
  return {
    id,
    name: params.name,
    args: (params.arguments as Record<string, unknown> | undefined) ?? {},
    tasks,
    ...(params.inputResponses ? { inputResponses: params.inputResponses as Record<string, unknown> } : {}),
  };
}

/** SEP-2575 / SEP-2663: a `required` task tool called without the extension. */
export function missingTasksCapability(name: string) {
  return { code: -32021, message: `${name} runs only as a task: declare the ${TASKS_EXTENSION} extension in the client capabilities`, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } };
}

/** `test_tool_with_task`, round 1: the name it needs, asked before any task exists. */
export function userNameOf(inputResponses: Record<string, unknown> | undefined): string | undefined {
  const r = inputResponses?.user_name;
  if (!isObject(r) || r.action !== 'accept' || !isObject(r.content)) return undefined;
  const v = r.content.name ?? r.content.user_name;
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

export const USER_NAME_ROUND = {
  resultType: 'input_required',
  inputRequests: {
    user_name: {
      method: 'elicitation/create',
      params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    },
  },
} as const;

/**
 * The answer to a call `fixtureTaskCallOf` recognized: -32021 without the extension; for
 * `test_tool_with_task`, the MRTR round until the name is given; otherwise the task handle of the
 * fixture agent's A2A task (`startToolTask`, as for any agent tool).
 */
export async function answerFixtureTaskCall(
  call: FixtureTaskCall,
  d: { specOf: (fixture: string) => AgentToolSpec | undefined; startToolTask: (spec: AgentToolSpec, args: AgentToolArgs) => Promise<Record<string, unknown>> },
): Promise<{ status: number; result: Record<string, unknown> } | { status: number; error: Record<string, unknown> }> {
  if (!call.tasks) return { status: 400, error: missingTasksCapability(call.name) };
  const spec = d.specOf(call.name);
  if (!spec) return { status: 200, error: { code: -32602, message: `Unknown tool: ${call.name}` } };
  let args = call.args;
  if (call.name === 'test_tool_with_task') {
    const userName = userNameOf(call.inputResponses);
    if (!userName) return { status: 200, result: { ...USER_NAME_ROUND } };
    args = { user_name: userName };
  }
  const created = await d.startToolTask(spec, fixtureToolArgs(call.name, args)).catch((err: unknown) => {
    if (err instanceof A2AError) return { ...errorResult(err.message), resultType: 'complete' };
    throw err;
  });
  return { status: 200, result: created };
}

/**
 * The fixture task tools' input schemas, compiled once at import: `registerFixtureTaskTools`
 * runs on every request (the SDK builds an instance per request) and an Ajv compile is
 * milliseconds of CPU, which on a loaded machine made a listen stream's list_changed miss the
 * conformance runner's fixed 1.5 s window (server-stateless). Shared by every instance, as the
 * agent tools' compiled schemas are (src/bindings/mcp/surface/mcp-server-factory.ts).
 */
const COMPILED_INPUT_SCHEMAS = new Map(Object.entries(FIXTURE_TASK_TOOLS).map(([name, t]) => [name, fromJsonSchema(t.inputSchema as Parameters<typeof fromJsonSchema>[0]) as StandardSchemaWithJSON]));

/**
 * Lists the fixture task tools on one server instance. A call that reaches the SDK runs
 * synchronously through `callTool` (the agent tool of the fixture agent); a `required` tool
 * answers that it needs the extension.
 */
export function registerFixtureTaskTools(
  server: McpServer,
  specOf: (fixture: string) => AgentToolSpec | undefined,
  callTool: (spec: AgentToolSpec, args: AgentToolArgs, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>,
): void {
  for (const [name, t] of Object.entries(FIXTURE_TASK_TOOLS)) {
    const spec = specOf(name);
    if (!spec) continue;
    const inputSchema = COMPILED_INPUT_SCHEMAS.get(name)!;
    server.registerTool(name, { description: `${t.description} (task support: ${t.taskSupport})`, inputSchema }, async (args, ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (t.taskSupport === 'required') return { isError: true, content: [{ type: 'text', text: missingTasksCapability(name).message }] };
      return callTool(spec, fixtureToolArgs(name, args as Record<string, unknown>), ctx);
    });
  }
}

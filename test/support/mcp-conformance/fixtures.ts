/**
 * The fixture tools, resources and prompts that `@modelcontextprotocol/conformance` server
 * scenarios call by name (`test_simple_text`, `test://static-text`, `test_simple_prompt`, ...).
 * They test the protocol machinery, not agents, so they live beside the agent tools on the same
 * McpServer instances, registered by the fixture module (fixture-module.ts) that the conformance
 * test names in `mcp.fixtureModule` (the run uses an auth-disabled instance).
 *
 * Server→client requests (sampling, elicitation, roots) are written once, as MRTR
 * `input_required` returns: modern clients answer them in a retry; 2025-era clients that can
 * answer server requests get a legacy session (src/bindings/mcp/transport/legacy-sessions.ts) where the
 * SDK's shim sends them as real requests. Fixture `requestState`s are sealed by the endpoint's
 * codec like the agent tools' states, so a tampered one is refused before a handler runs.
 */
import {
  fromJsonSchema,
  inputRequired,
  inputResponse,
  ResourceTemplate,
  type CallToolResult,
  type InputRequiredResult,
  type McpServer,
  type RequestStateCodec,
  type ServerEventBus,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';

/** A 1×1 transparent PNG. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** A WAV header with no samples (8 kHz mono 8-bit). */
const WAV_EMPTY = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

/** What fixture states carry: which round of which fixture, never anything an agent tool accepts. */
interface FixtureState {
  fixture: string;
  round?: number;
  name?: string;
}

const CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

export const CONFORMANCE_CAPABILITIES = {
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  resources: { subscribe: true, listChanged: true },
} as const;

type Codec = RequestStateCodec<unknown>;
type ToolReturn = CallToolResult | InputRequiredResult;

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const ask = (message: string, field: string, type: 'string' | 'boolean' = 'string') =>
  inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { [field]: { type } as never }, required: [field] } });
const sample = (prompt: string, maxTokens: number) => inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens });

function elicited(ctx: ServerContext, key: string, field: string): string | undefined {
  const r = inputResponse(ctx.mcpReq.inputResponses, key);
  if (r.kind !== 'elicit' || r.action !== 'accept') return undefined;
  const v = r.content?.[field];
  return v === undefined ? undefined : String(v);
}

function fixtureState(ctx: ServerContext, fixture: string): FixtureState | undefined {
  const s = ctx.mcpReq.requestState<FixtureState>();
  return s && typeof s === 'object' && s.fixture === fixture ? s : undefined;
}

function clientCapabilities(ctx: ServerContext): Record<string, unknown> {
  const env = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (env?.[CAPABILITIES_META_KEY] as Record<string, unknown> | undefined) ?? {};
}

/**
 * Every input schema here is compiled once, at import: `registerConformanceFixtures` runs on every
 * request (the SDK builds an instance per request), and compiling these with Ajv there cost
 * milliseconds of CPU a request, enough on a loaded machine for a listen stream's list_changed to
 * miss the conformance runner's fixed 1.5 s window (server-stateless,
 * sep-2575-server-sends-tools-list-changed-on-subscription). Instances share compiled schemas as
 * the agent tools' do (src/bindings/mcp/surface/mcp-server-factory.ts).
 */
const jsonSchema = (schema: Record<string, unknown>) => fromJsonSchema(schema as never) as StandardSchemaWithJSON;
const EMPTY_INPUT = jsonSchema({ type: 'object', properties: {} });
const JSON_SCHEMA_2020_12_INPUT = jsonSchema({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
});
const GREET_INPUT = jsonSchema({ type: 'object', properties: { name: { type: 'string' } } });
const CUSTOM_HEADER_INPUT = jsonSchema({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] });
const SAMPLING_INPUT = jsonSchema({ type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] });
const ELICITATION_INPUT = jsonSchema({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
/** Required string arguments of a prompt, as the Standard Schema the SDK takes. */
function promptArgs(described: Record<string, string>): StandardSchemaWithJSON {
  const properties = Object.fromEntries(Object.entries(described).map(([k, description]) => [k, { type: 'string', description }]));
  return jsonSchema({ type: 'object', properties, required: Object.keys(described) });
}
const PROMPT_WITH_ARGUMENTS_ARGS = promptArgs({ arg1: 'First test argument', arg2: 'Second test argument' });
const PROMPT_WITH_EMBEDDED_RESOURCE_ARGS = promptArgs({ resourceUri: 'URI of the resource to embed' });

/** Registers every fixture on one server instance; `codec` seals their requestStates. */
export function registerConformanceFixtures(server: McpServer, codec: Codec, listBus?: ServerEventBus): void {
  const seal = (state: FixtureState, ctx: ServerContext) => codec.mint(state, ctx);
  const tool = (name: string, description: string, run: (ctx: ServerContext, args: Record<string, unknown>) => ToolReturn | Promise<ToolReturn>, inputSchema = EMPTY_INPUT) =>
    server.registerTool(name, { description, inputSchema }, (args, ctx) => run(ctx, args as Record<string, unknown>));

  // Content types (tools-call-*).
  tool('test_simple_text', 'Returns simple text content', () => text('This is a simple text response for testing.'));
  tool('test_image_content', 'Returns image content', () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }));
  tool('test_audio_content', 'Returns audio content', () => ({ content: [{ type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' }] }));
  tool('test_embedded_resource', 'Returns an embedded resource', () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  tool('test_multiple_content_types', 'Returns text, image and resource content', () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ],
  }));
  tool('test_error_handling', 'Fails on purpose', () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  // Notifications during a call.
  tool('test_tool_with_logging', 'Logs three messages while it runs', async (ctx) => {
    for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) await ctx.mcpReq.log('info', m);
    return text('Tool with logging executed successfully');
  });
  tool('test_tool_with_progress', 'Reports progress 0, 50, 100', async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
    for (const progress of [0, 50, 100]) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
    }
    return text(String(progressToken));
  });
  tool('test_logging_tool', 'Logs only when the request names a log level', async (ctx) => {
    await ctx.mcpReq.log('info', 'Diagnostic trace logging activated');
    return text('Logging evaluated');
  });
  tool('test_streaming_elicitation', 'Streams a progress notification before its result', async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 50, total: 100 } });
    return text('Streaming complete');
  });
  // The SDK turns a thrown error into an isError result, but checks the client's capabilities
  // against an input request itself and answers -32021 (HTTP 400) when one is missing.
  tool('test_missing_capability', 'Needs the sampling capability', (ctx) => {
    if (clientCapabilities(ctx).sampling) return text('Success');
    return inputRequired({ inputRequests: { sample: sample('Capability probe', 10) } });
  });
  tool('json_schema_2020_12_tool', 'Takes JSON Schema 2020-12 input (SEP-1613)', (_ctx, args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`), JSON_SCHEMA_2020_12_INPUT);

  // The tasks extension's one sync-only fixture (the task-supporting ones: task-tools.ts).
  tool('greet', 'Greets by name, synchronously (never a task)', (_ctx, args) => text(`Hello, ${String(args.name ?? 'World')}!`), GREET_INPUT);

  // SEP-2243 custom headers: `region` is mirrored in `Mcp-Param-Region`; the SDK checks the header
  // (Base64 sentinel included) against the body before this runs, and rejects a mismatch with -32020.
  tool('test_custom_header', 'Takes a region mirrored in the Mcp-Param-Region header (SEP-2243)', (_ctx, args) => text(`region: ${String(args.region)}`), CUSTOM_HEADER_INPUT);

  // List changes, announced on open subscriptions/listen streams (the lists themselves stay the same).
  tool('test_trigger_tool_change', 'Announces a tools list change', () => {
    listBus?.publish({ kind: 'tools_list_changed' });
    return text('Mutation triggered');
  });
  tool('test_trigger_prompt_change', 'Announces a prompts list change', () => {
    listBus?.publish({ kind: 'prompts_list_changed' });
    return text('Mutation triggered');
  });

  // Server→client requests as input_required (2025-era sessions get them as real requests).
  tool(
    'test_sampling',
    'Asks the client to sample',
    (ctx, args) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (r.kind === 'sampling') return text(`LLM response: ${(r.result.content as { text?: string }).text ?? 'No response'}`);
      return inputRequired({ inputRequests: { sample: sample(String(args.prompt ?? 'Hello'), 100) } });
    },
    SAMPLING_INPUT,
  );
  tool(
    'test_elicitation',
    'Asks the user for a response',
    (ctx, args) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'response');
      if (r.kind === 'elicit') return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      return inputRequired({
        inputRequests: {
          response: inputRequired.elicit({
            message: String(args.message ?? 'Please respond'),
            requestedSchema: { type: 'object', properties: { response: { type: 'string', description: "User's response" } }, required: ['response'] },
          }),
        },
      });
    },
    ELICITATION_INPUT,
  );
  const formFixture = (name: string, message: string, properties: Record<string, unknown>) =>
    tool(name, message, (ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'form');
      if (r.kind === 'elicit') return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      return inputRequired({ inputRequests: { form: inputRequired.elicit({ message, requestedSchema: { type: 'object', properties, required: [] } as never }) } });
    });
  formFixture('test_elicitation_sep1034_defaults', 'Please review and update the form fields with defaults', {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  });
  const choices = (titles: string[], prefix: string) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
  formFixture('test_elicitation_sep1330_enums', 'Please select options from the enum fields', {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: choices(['First Option', 'Second Option', 'Third Option'], 'value') },
    legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: { type: 'array', description: 'Select multiple options with titles', minItems: 1, maxItems: 3, items: { anyOf: choices(['First Choice', 'Second Choice', 'Third Choice'], 'value') } },
  });

  // MRTR (input-required-result-*).
  tool('test_input_required_result_elicitation', 'MRTR: one elicitation', (ctx) => {
    const name = elicited(ctx, 'user_name', 'name');
    return name !== undefined ? text(`Hello, ${name}!`) : inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
  });
  tool('test_input_required_result_sampling', 'MRTR: one sampling request', (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, 'sample_request');
    if (r.kind === 'sampling') return text(`Sampling result: ${(r.result.content as { text?: string }).text ?? 'no response'}`);
    return inputRequired({ inputRequests: { sample_request: sample('What is the capital of France?', 100) } });
  });
  tool('test_input_required_result_list_roots', 'MRTR: one roots/list request', (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, 'roots_request');
    if (r.kind === 'roots') return text(`Found ${r.roots.length} root(s)`);
    return inputRequired({ inputRequests: { roots_request: inputRequired.listRoots() } });
  });
  tool('test_input_required_result_request_state', 'MRTR: echoes a sealed requestState', async (ctx) => {
    const state = fixtureState(ctx, 'request-state');
    const r = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    if (state && r.kind === 'elicit' && r.action === 'accept' && r.content?.ok === true) return text('state-ok: requestState validated');
    return inputRequired({ inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') }, requestState: await seal({ fixture: 'request-state' }, ctx) });
  });
  tool('test_input_required_result_tampered_state', 'MRTR: refuses a tampered requestState', async (ctx) => {
    if (fixtureState(ctx, 'tamper-test') && inputResponse(ctx.mcpReq.inputResponses, 'confirm').kind === 'elicit') return text('integrity-ok: state verified');
    return inputRequired({ inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') }, requestState: await seal({ fixture: 'tamper-test' }, ctx) });
  });
  tool('test_input_required_result_multiple_inputs', 'MRTR: three input requests at once', async (ctx) => {
    const name = elicited(ctx, 'user_name', 'name');
    const greeting = inputResponse(ctx.mcpReq.inputResponses, 'greeting');
    const roots = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
    if (fixtureState(ctx, 'multiple-inputs') && name !== undefined && greeting.kind === 'sampling' && roots.kind === 'roots') {
      return text(`Name: ${name}; Greeting: ${(greeting.result.content as { text?: string }).text ?? 'Hello there!'}; Roots: ${roots.roots.length}`);
    }
    return inputRequired({
      inputRequests: { user_name: ask('What is your name?', 'name'), greeting: sample('Generate a greeting', 50), client_roots: inputRequired.listRoots() },
      requestState: await seal({ fixture: 'multiple-inputs' }, ctx),
    });
  });
  tool('test_input_required_result_multi_round', 'MRTR: two rounds', async (ctx) => {
    const state = fixtureState(ctx, 'multi-round');
    const step1 = elicited(ctx, 'step1', 'name');
    if (state?.round === 1 && step1 !== undefined) {
      return inputRequired({ inputRequests: { step2: ask('Step 2: What is your favorite color?', 'color') }, requestState: await seal({ fixture: 'multi-round', round: 2, name: step1 }, ctx) });
    }
    const color = elicited(ctx, 'step2', 'color');
    if (state?.round === 2 && color !== undefined) return text(`Multi-round complete for ${state.name ?? 'friend'} who likes ${color}`);
    return inputRequired({ inputRequests: { step1: ask('Step 1: What is your name?', 'name') }, requestState: await seal({ fixture: 'multi-round', round: 1 }, ctx) });
  });
  tool('test_input_required_result_capabilities', 'MRTR: asks only for what the client declared', async (ctx) => {
    const given = Object.keys(ctx.mcpReq.inputResponses ?? {});
    if (given.length) return text(`capabilities-ok: received ${given.join(',')}`);
    const caps = clientCapabilities(ctx);
    const inputRequests: Record<string, ReturnType<typeof ask>> = {};
    if (caps.elicitation) inputRequests.elicit_input = ask('Elicitation input', 'value');
    if (caps.sampling) inputRequests.sample_input = sample('Sample request', 50);
    if (!Object.keys(inputRequests).length) return text('No supported capabilities declared');
    return inputRequired({ inputRequests, requestState: await seal({ fixture: 'capabilities-test' }, ctx) });
  });

  // Resources.
  server.registerResource('static-text', 'test://static-text', { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { title: 'Static Binary Resource', description: 'A static binary resource for testing', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_1X1 }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { title: 'Watched Resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
  }));
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
    (uri, vars) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id: vars.id, templateTest: true, data: `Data for ID: ${String(vars.id)}` }) }] }),
  );
  // Nothing changes under the fixtures, so a subscription is acknowledged and never fires.
  server.server.setRequestHandler('resources/subscribe', () => ({}));
  server.server.setRequestHandler('resources/unsubscribe', () => ({}));
  server.server.setRequestHandler('logging/setLevel', () => ({}));
  server.server.setRequestHandler('completion/complete', () => ({ completion: { values: [], total: 0, hasMore: false } }));

  // Prompts.
  const userText = (t: string) => ({ role: 'user' as const, content: { type: 'text' as const, text: t } });
  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, () => ({
    messages: [userText('This is a simple prompt for testing.')],
  }));
  server.registerPrompt('test_prompt_with_arguments', { title: 'Prompt With Arguments', description: 'A prompt with required arguments', argsSchema: PROMPT_WITH_ARGUMENTS_ARGS }, (args) => {
    const a = args as Record<string, unknown>;
    return { messages: [userText(`Prompt with arguments: arg1='${String(a.arg1)}', arg2='${String(a.arg2)}'`)] };
  });
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { title: 'Prompt With Embedded Resource', description: 'A prompt that includes an embedded resource', argsSchema: PROMPT_WITH_EMBEDDED_RESOURCE_ARGS },
    (args) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: String((args as Record<string, unknown>).resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        userText('Please process the embedded resource above.'),
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, () => ({
    messages: [{ role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } }, userText('Please analyze the image above.')],
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'MRTR: a prompt that asks for context first' }, (ctx: unknown) => {
    const context = elicited(ctx as ServerContext, 'user_context', 'context');
    if (context !== undefined) return { messages: [userText(`Prompt with context: ${context}`)] };
    return inputRequired({ inputRequests: { user_context: ask('What context should the prompt use?', 'context') } }) as never;
  });
}

/**
 * The MCP conformance suite's fixtures as an MCP fixture module (src/bindings/mcp/surface/fixture-module.ts),
 * which the conformance test names in `mcp.fixtureModule`: the `test_*` tools, `test://`
 * resources and prompts (fixtures.ts), and the faces of the tasks-extension fixtures over the A2A
 * agent `mcp-conformance` (task-tools.ts, task-agent.ts). The fast path answers a fixture task
 * tool's call itself: its task handle, its MRTR round, or -32021.
 */
import type { McpFixtureModule } from '../../../src/bindings/mcp/surface/fixture-module.js';
import { toolName } from '../../../src/bindings/mcp/tools/agent-tools.js';
import { json } from '../../../src/bindings/mcp/answer.js';
import { SERVER_INFO_KEY } from '../../../src/bindings/mcp/tools/plain-tool-call.js';
import { CONFORMANCE_CAPABILITIES, registerConformanceFixtures } from './fixtures.js';
import { answerFixtureTaskCall, FIXTURE_AGENT_ID, fixtureTaskCallOf, registerFixtureTaskTools } from './task-tools.js';

const conformanceFixtures: McpFixtureModule = {
  capabilities: CONFORMANCE_CAPABILITIES,

  register(server, ctx) {
    registerConformanceFixtures(server, ctx.requestState, ctx.listBus);
    registerFixtureTaskTools(server, (fixture) => ctx.agentTool(toolName(FIXTURE_AGENT_ID, fixture)), ctx.callAgentTool);
  },

  async fastPath(request, headers, ctx) {
    const call = fixtureTaskCallOf(request, headers);
    if (!call) return undefined;
    const specOf = (name: string) => ctx.agentTool(toolName(FIXTURE_AGENT_ID, name));
    const a = await answerFixtureTaskCall(call, { specOf, startToolTask: ctx.startToolTask });
    return json(a.status, { jsonrpc: '2.0', id: call.id, ...('error' in a ? { error: a.error } : { result: { ...a.result, _meta: { [SERVER_INFO_KEY]: ctx.info } } }) });
  },
};

export default conformanceFixtures;

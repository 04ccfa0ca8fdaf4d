/**
 * Imports `mcp.fixtureModule` (src/bindings/mcp/surface/fixture-module.ts) the way `agents[].module` are
 * imported: a TypeScript module through tsx or the loader the process runs under.
 */
import { importAgentModule } from '../agents/import-agent-module.js';
import { mcpFixtureModuleOf, type McpFixtureModule } from '../bindings/mcp/surface/fixture-module.js';

export async function loadMcpFixtureModule(file: string): Promise<McpFixtureModule> {
  return mcpFixtureModuleOf(await importAgentModule(file), file);
}

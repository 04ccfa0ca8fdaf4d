/**
 * The Table Expert's MCP face, contributed through the agent SDK's hook (src/agents/sdk/mcp-tools.ts):
 * `search`, `fetch` and `query_table_expert`, the instructions that point clients at them, and the
 * pages their item `url`s open.
 */
import type { AgentMcp, AgentToolHints } from '../../sdk/mcp-tools.js';
import type { TableExpert } from '../skills.js';
import { renderItem } from './item-page.js';
import { tableExpertTools } from './tools.js';

export function tableExpertMcp(expert: TableExpert): AgentMcp {
  return {
    tools: tableExpertTools(expert),
    instructions: 'For data questions use query_table_expert; search and fetch find and open tables, columns, rows and saved results.',
    page: (item, req) => renderItem(expert, item, req),
  };
}

/** Every skill only reads the data: its skill tools say so (the config may override hint by hint). */
export const TABLE_EXPERT_SKILL_HINTS: AgentToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

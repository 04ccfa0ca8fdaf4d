/**
 * What the compatibility documents say about this server, gathered once per request by
 * compat-routes.ts. documents.ts and novaeden-connectors.ts both render from it; it lives here so
 * documents.ts can use the Novaeden members without novaeden-connectors.ts importing it back.
 */
export interface ServerFacts {
  publicUrl: string;
  version: string;
  authMode: 'required' | 'none';
  oauthEnabled: boolean;
  /** a Table Expert answers ChatGPT's search/fetch pair */
  searchAndFetch: boolean;
  agentCount: number;
}

/** The scope MCP clients ask for (src/core/authz/scopes.ts `SCOPES.mcpTools`). */
export const MCP_SCOPE = 'mcp:tools';

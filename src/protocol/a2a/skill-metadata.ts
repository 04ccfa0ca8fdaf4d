/**
 * Request metadata naming the skill a message is for. A2A has no skill field; Agentport's MCP
 * tools (one per skill) set it, agents may read it, and usage records take the skill from it.
 */
export const SKILL_METADATA_KEY = 'agentport/skill';

/**
 * What an agent declares about itself; build-card.ts turns it into the AgentCard a server
 * publishes. Skills marked `extended` appear only on the authenticated extended card.
 */
import type { AgentCapabilities, AgentExtension, AgentSkill } from '../types.js';

export interface AgentCardSpec {
  name: string;
  description: string;
  version?: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  capabilities?: Pick<AgentCapabilities, 'streaming' | 'pushNotifications'> & { extensions?: AgentExtension[] };
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  skills: Array<AgentSkill & { visibility?: 'public' | 'extended' }>;
}

/** The demo agent: echoes the user's message back as an artifact and completes. */
import { defineAgent } from '../sdk/agent.js';

export const echoAgent = defineAgent({
  card: {
    name: 'Echo',
    description: 'Echoes back whatever you send it. Useful to check that a client reaches Agentport.',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Returns the parts of your message unchanged.',
        tags: ['demo', 'test'],
        examples: ['hello'],
      },
    ],
  },
  // It only echoes: its tool is read-only (src/bindings/mcp/tools/agent-tools.ts).
  toolAnnotations: () => ({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }),
  execute(ctx) {
    ctx.artifact(ctx.message.parts, { name: 'echo' });
    ctx.complete();
  },
});

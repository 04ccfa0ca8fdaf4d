import { A2AError } from '../../protocol/a2a/errors.js';
import type { Message } from '../../protocol/a2a/types.js';
import type { RegisteredAgent } from '../agents/agent-registry.js';

/**
 * Spec §3.3.2: a part whose media type the agent does not accept gets ContentTypeNotSupported.
 * Only parts that state a mediaType are judged; `*\/*` and `type/*` in the card are wildcards.
 */
export function checkInputModes(agent: RegisteredAgent, msg: Message): void {
  const modes = agent.publicCard.defaultInputModes;
  if (!modes.length) return;
  // Indexed: `entries()` made an iterator and an [index, part] array per part on every send.
  const parts = msg.parts;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.mediaType) continue;
    const type = (p.mediaType.split(';')[0] ?? '').trim().toLowerCase();
    const ok = modes.some((m) => {
      const mode = m.toLowerCase();
      return mode === '*/*' || mode === type || (mode.endsWith('/*') && type.startsWith(mode.slice(0, -1)));
    });
    if (!ok) {
      throw new A2AError('ContentTypeNotSupported', `message.parts[${i}] has media type '${type}', which this agent does not accept (accepted: ${modes.join(', ')})`);
    }
  }
}

import { defineAgent } from 'agentport/agent';

/** Replies to every message with the text it received: the smallest useful agent. */
export default defineAgent({
  card: {
    name: 'Echo',
    description: 'Replies with the text it receives',
    skills: [{ id: 'echo', name: 'Echo', description: 'Repeats your message back to you', tags: ['example'], examples: ['hello'] }],
  },
  execute(ctx) {
    // A direct reply: a single Message, no task to track. ctx.text() joins the text parts.
    ctx.reply(`You said: ${ctx.text()}`);
  },
});

import { defineAgent } from 'agentport/agent';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'today', 'tomorrow'];

/** The day named in a message, if any. */
function dayIn(text: string): string | undefined {
  return DAYS.find((day) => text.toLowerCase().includes(day));
}

/**
 * Books a table, asking for the day when the request does not name one. Asking pauses the task
 * in INPUT_REQUIRED and ends this run; the client's answer (a message with the same taskId)
 * starts a new run with `ctx.task` set to the task as it stands, its history included.
 */
export default defineAgent({
  card: {
    name: 'Booking',
    description: 'Books a table; asks for the day when you do not say it',
    skills: [{ id: 'book', name: 'Book a table', description: 'Books a table for a day of the week', tags: ['example', 'multi-turn'], examples: ['a table for two on friday'] }],
  },
  execute(ctx) {
    const day = dayIn(ctx.text());
    if (!day) {
      ctx.askInput(ctx.task ? 'Sorry, which day? (monday to sunday, today or tomorrow)' : 'Which day would you like the table for?');
      return;
    }
    // The first message of the task, whichever run this is.
    const request = ctx.task?.history?.find((m) => m.role === 'ROLE_USER')?.parts[0]?.text ?? ctx.text();
    ctx.complete(`Booked: "${request}", on ${day}.`);
  },
});

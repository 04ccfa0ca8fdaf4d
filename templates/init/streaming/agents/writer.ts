import { defineAgent } from 'agentport/agent';

/**
 * Writes its answer one word at a time: a task that is WORKING, then an artifact that grows in
 * chunks, then COMPLETED. A streaming client sees every chunk as it is produced; a blocking one
 * gets the finished task.
 */
export default defineAgent({
  card: {
    name: 'Writer',
    description: 'Writes a short text about your topic, streamed word by word',
    skills: [{ id: 'write', name: 'Write', description: 'A short text about a topic', tags: ['example', 'streaming'], examples: ['the sea'] }],
  },
  async execute(ctx) {
    const topic = ctx.text().trim() || 'nothing in particular';
    ctx.working(`Writing about ${topic}…`);
    const words = `Here is a short text about ${topic}, written one word at a time.`.split(' ');
    let artifactId: string | undefined;
    for (const [i, word] of words.entries()) {
      // Rejects when the task is canceled, which ends this run (the task is already CANCELED).
      await ctx.sleep(40);
      artifactId = ctx.artifact(i === 0 ? word : ` ${word}`, {
        name: 'text',
        ...(artifactId ? { artifactId } : {}),
        append: i > 0,
        lastChunk: i === words.length - 1,
      });
    }
    ctx.complete();
  },
});

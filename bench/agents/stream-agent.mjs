// A bench-only agent for bench/streams.js (loaded by the server as a module). The message text picks
// what the task's stream carries:
//   idle <ms>         WORKING, then nothing for <ms> (an open stream with no traffic), then COMPLETED
//   ticks <n> <ms>    n artifact chunks `tick <i> <wall-clock ms>`, one every <ms>, then COMPLETED;
//                     the time is taken just before the chunk is emitted, so the client can tell how
//                     late each event arrived
// Each tick replaces the one artifact (append false, same artifactId), so a task's document does not
// grow with the length of the run and the per-event cost is the same in the first minute and the tenth.

const wallMs = () => performance.timeOrigin + performance.now();

async function pause(ctx, ms) {
  try {
    await ctx.sleep(ms);
    return true;
  } catch (err) {
    if (ctx.signal.aborted) return false;
    throw err;
  }
}

export default {
  card: {
    name: 'Stream bench agent',
    description: 'idle <ms> | ticks <n> <ms>: long-lived streams for bench/streams.js.',
    version: '0.0.1',
    capabilities: { streaming: true },
    skills: [{ id: 'streams', name: 'Streams', description: 'Quiet or ticking streams.', tags: ['bench'] }],
  },
  async execute(ctx) {
    const text = ctx.text().trim();
    const idle = /^idle (\d+)$/.exec(text);
    const ticks = /^ticks (\d+) (\d+)$/.exec(text);
    if (idle) {
      ctx.working('idle');
      if (await pause(ctx, Number(idle[1]))) ctx.complete();
      return;
    }
    if (!ticks) {
      ctx.fail('expected: idle <ms> | ticks <n> <ms>');
      return;
    }
    ctx.working('ticking');
    const [n, ms] = [Number(ticks[1]), Number(ticks[2])];
    let artifactId;
    for (let i = 1; i <= n; i++) {
      if (!(await pause(ctx, ms))) return;
      const text = `tick ${i} ${wallMs().toFixed(3)}`;
      artifactId = ctx.artifact(text, artifactId ? { artifactId, append: false } : { name: 'tick' });
    }
    ctx.complete();
  },
};

// A built tree's `agentport serve` with a probe preloaded (bench/lib/alloc-preload.cjs,
// survivor-preload.cjs) that starts on the first SIGUSR2 and writes its findings to a file on the
// second: warmed up, then loaded for the measured seconds between the two signals. Shared by
// bench/alloc-sites.js and bench/survivor-sites.js.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runAutocannon, runWrk, ensureWrk } from './load.mjs';
import { startBenchServer } from './bench-server.mjs';
import { sleep } from './net.mjs';

/**
 * `args`: node's and the server's arguments; `outFile`: where the probe writes; `pauseMs`: a wait
 * after the first signal before the measured load. Answers the measured load's figures and the
 * probe's JSON.
 */
export async function runProbed({ tree, args, env, url, headers, workload, connections, warmup, duration, outFile, pauseMs = 0, what }) {
  const { server, stop } = await startBenchServer({ args, cwd: tree, env, url, headers, workload });
  const gen = ensureWrk() ? runWrk : runAutocannon;
  const load = (durationS, runId) => gen({ url, connections, threads: 1, durationS, headers, bodyPrefix: workload.bodyPrefix, bodySuffix: workload.bodySuffix, runId });
  if (warmup > 0) await load(warmup, 'warmup');
  server.kill('SIGUSR2');
  if (pauseMs > 0) await sleep(pauseMs);
  const measured = await load(duration, 'measured');
  server.kill('SIGUSR2');
  for (let i = 0; !existsSync(outFile); i++) {
    if (i > 100) throw new Error(`the server wrote no ${what}`);
    await sleep(100);
  }
  await sleep(300);
  stop();
  return { measured, probe: JSON.parse(readFileSync(outFile, 'utf8')) };
}

/** How a profile's call frame is named: its function and its file, shortened, at its line (1-based). */
export function callFrameNames(tree) {
  const shortUrl = (u) =>
    u
      .replace(/^file:\/\//, '')
      .replace(`${tree}${path.sep}`, '')
      .replace(/.*node_modules\//, 'node_modules/');
  const site = (cf) => `${cf.functionName || '(anonymous)'} ${cf.url ? `${shortUrl(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim();
  return { shortUrl, site };
}

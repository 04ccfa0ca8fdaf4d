/**
 * The V8 settings the server process runs with.
 *
 * Allocation-site pretenuring off (ADR 0047). V8 watches which object literals survive a
 * young-generation collection and, once nearly all of one site's objects did, allocates that
 * site's objects in the old generation directly. Under load the request path's literals
 * qualified; allocated old, they die young, but a dead old object is a root for the scavenger
 * until the next full collection, so the young objects they point at (the rest of the request)
 * were copied and promoted too. With the request-rate maps fixed (memory/transient-map.ts) that
 * still promoted ~1.1 MB per scavenge at ~6,000 req/s on 8 connections; without pretenuring ~0.2 MB.
 *
 * Scavenges on the main thread alone with two cores or fewer (ADR 0069). A parallel scavenge
 * splits the copy among Node's platform threads (four, whatever the core count) and the pause
 * lasts until the last of them is done; with the event loop, the SQLite commit thread and a client
 * on two cores those threads wait for a core, and a scavenge that copies ~80 KB waited for them:
 * on the bench machine the pauses of ≥ 2 ms fell from 21–49 % of scavenges to 5–15 %.
 *
 * Both are read by V8 at each collection, so they take effect set here, before the server starts.
 * A process started with either flag (on the command line or in NODE_OPTIONS) keeps its choice.
 *
 * The young generation's size is not set here: V8 fixes it when the heap is set up, before any of
 * this runs. The launch lines Agentport ships start node with SHIPPED_YOUNG_GENERATION (ADR 0081:
 * bin/agentport.js's shebang, package.json's scripts, the image's entrypoint, the systemd unit);
 * a server started another way keeps V8's default and says so in a debug line.
 */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

export interface HeapSettingsInput {
  /** the process's node options, NODE_OPTIONS first: the command line's execArgv comes after them and wins */
  nodeOptions?: readonly string[];
  cores?: number;
}

/** Scavenges stay parallel above this many cores: the platform threads then have cores of their own. */
const SERIAL_SCAVENGE_MAX_CORES = 2;

/**
 * The node option every shipped launch line starts the server with (ADR 0081): 64 MB semi-spaces,
 * about a third as many scavenges as V8's 16 MB under the blocking echo, so that under 1 % of the
 * requests at 8 connections wait for one.
 */
export const SHIPPED_YOUNG_GENERATION = '--max-semi-space-size=64';

/** Returns the debug lines the server logs about them once its logger exists. */
export function applyHeapSettings(input: HeapSettingsInput = {}, setFlags: (flags: string) => void = setFlagsFromString): string[] {
  const given = input.nodeOptions ?? [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv];
  // `--flag`, `--no-flag` or `--noflag`, with V8's `_` or `-` (not a flag that only contains the name, e.g. a trace flag)
  // the last one given: the one V8 takes
  const choice = (flag: string) => [...given].reverse().find((a) => new RegExp(`^--(no-?)?${flag}(=|$)`).test(a.replaceAll('_', '-')));
  if (!choice('allocation-site-pretenuring')) setFlags('--no-allocation-site-pretenuring');
  if (!choice('parallel-scavenge') && (input.cores ?? availableParallelism()) <= SERIAL_SCAVENGE_MAX_CORES) setFlags('--no-parallel-scavenge');
  const young = choice('max-semi-space-size');
  return [young ? `young generation: ${young} from the node options` : `young generation: V8's default semi-spaces; the shipped launch lines start node with ${SHIPPED_YOUNG_GENERATION} (ADR 0081)`];
}

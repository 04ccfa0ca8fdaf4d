/**
 * The V8 setting the server process runs with (ADR 0047): allocation-site pretenuring off.
 *
 * V8 watches which object literals survive a young-generation collection and, once one site's
 * objects nearly all did, allocates that site's objects in the old generation directly. A
 * request's objects all survive while the request waits on a commit, so under load the sites of
 * the request path were moved to the old generation; there they die young, but a dead old object
 * is a root for the scavenger until the next full collection, so every young object they point at
 * (the rest of the request, and the next requests they link to) was copied and promoted too. At
 * ~6,000 req/s on 8 connections that was ~1.1 MB promoted per scavenge, 3–6 ms scavenges every
 * ~25 ms: the 99th percentile. Without pretenuring ~0.2 MB.
 *
 * Set at start, before the server's code has run (the setting is read at each collection). A
 * process started with `--allocation-site-pretenuring` keeps it.
 */
import { setFlagsFromString } from 'node:v8';

export function applyHeapSettings(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((a) => a.includes('allocation-site-pretenuring') || a.includes('allocation_site_pretenuring'))) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}

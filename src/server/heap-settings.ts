/**
 * The V8 setting the server process runs with (ADR 0047): allocation-site pretenuring off.
 *
 * V8 watches which object literals survive a young-generation collection and, once nearly all of
 * one site's objects did, allocates that site's objects in the old generation directly. Under load
 * the request path's literals qualified; allocated old, they die young, but a dead old object is a
 * root for the scavenger until the next full collection, so the young objects they point at (the
 * rest of the request) were copied and promoted too. With the request-rate maps fixed
 * (memory/transient-map.ts) that still promoted ~1.1 MB per scavenge at ~6,000 req/s on 8
 * connections; without pretenuring ~0.2 MB.
 *
 * Set before the server starts (V8 reads the setting at each collection). A
 * process started with `--allocation-site-pretenuring` keeps it.
 */
import { setFlagsFromString } from 'node:v8';

export function applyHeapSettings(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): void {
  if (execArgv.some((a) => a.includes('allocation-site-pretenuring') || a.includes('allocation_site_pretenuring'))) return;
  setFlags('--no-allocation-site-pretenuring');
}

/**
 * Debian's Chromium, driven by playwright-core, as the page tests and the screenshot script use it:
 * headless, no sandbox (CI runs as root), nothing fetched in the background, a fresh profile each
 * time. Fails with a clear message when /usr/bin/chromium is missing (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.AGENTPORT_CHROMIUM ?? '/usr/bin/chromium';

/** How the browser is started, by launchChromium and by the test run's shared browser (test/support/shared-chromium.ts). */
export const CHROMIUM_LAUNCH = {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

/** The window every page is laid out in (the screenshots are of it). */
export const CHROMIUM_VIEWPORT = { width: 1100, height: 900 };

/** Throws the message that says how to install Chromium when it is missing. */
export function requireChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run apt-get install -y chromium (.ci/run does), or set AGENTPORT_CHROMIUM`);
  }
}

/** A browser context with a fresh profile; `close()` ends the browser and removes the profile. */
export async function launchChromium() {
  requireChromium();
  const profile = await mkdtemp(path.join(tmpdir(), 'agentport-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM_LAUNCH, viewport: CHROMIUM_VIEWPORT });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

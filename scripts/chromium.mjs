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

/** A browser context with a fresh profile; `close()` ends the browser and removes the profile. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run apt-get install -y chromium (.ci/run does), or set AGENTPORT_CHROMIUM`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'agentport-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

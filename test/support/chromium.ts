/**
 * The browser of a test file: a fresh context (its own cookies and storage, as a fresh profile
 * had) in the run's shared Chromium (test/support/shared-chromium.ts), or in a Chromium of its own
 * (scripts/chromium.mjs) where no run-wide browser was started (a run of another project or
 * config). `close()` closes the context and lets go of the browser; the run closes the shared one.
 */
import { chromium } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_VIEWPORT, launchChromium, requireChromium } from '../../scripts/chromium.mjs';

export type TestBrowser = Awaited<ReturnType<typeof launchChromium>>;

export async function openChromium(): Promise<TestBrowser> {
  const endpoint = inject('chromiumEndpoint');
  if (!endpoint) {
    requireChromium();
    return launchChromium();
  }
  const browser = await chromium.connect(endpoint);
  const context = await browser.newContext({ viewport: CHROMIUM_VIEWPORT });
  return {
    context,
    async close() {
      await context.close();
      // On a connected browser this disconnects; the browser itself stays for the other files.
      await browser.close();
    },
  };
}

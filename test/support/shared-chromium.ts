/**
 * Vitest global setup of `system-shared` (vitest.config.ts): one Chromium for the whole run, its
 * endpoint handed to the files (`inject('chromiumEndpoint')`), which connect to it and each open a
 * browser context of their own (test/support/chromium.ts). A browser launched per file cost 1–3 s
 * of CPU apiece on the loaded 2-core machine, thirteen files of it (issue 26; docs/benchmarks.md,
 * "suite36"). Started lazily would save the launch for a run without browser files, but a global
 * setup cannot know when a file first asks; a launch is cheap against one such file.
 *
 * The browser is a child of the main vitest process and closed when the project ends, so its CPU
 * counts in the run's (not in any one file's, AGENTPORT_CPU_PER_FILE). Without Chromium installed
 * nothing is provided, and each browser file fails with launchChromium's message (scripts/chromium.mjs).
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_LAUNCH } from '../../scripts/chromium.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the shared browser's endpoint for playwright-core's `chromium.connect`; absent without Chromium */
    chromiumEndpoint?: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const server = await chromium.launchServer(CHROMIUM_LAUNCH);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}

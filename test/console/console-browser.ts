/**
 * What the console's browser tests share: a page that records console errors and CSP violations,
 * signing in through the OAuth server's login form, axe-core's serious and critical findings, and
 * opening a page of the console by its hash route.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

const IMAGES = path.resolve(import.meta.dirname, '../../docs/images');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A page that records console errors, page errors and CSP violations. */
export async function newPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  // Shorter than the test's own timeout, so a wait that never ends fails naming its locator.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    // A 4xx asked for on purpose (the refused key, the member's keys call) is reported as a failed load.
    if (/^Failed to load resource: the server responded with a status of (401|403)/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return { page, problems };
}

/** Signs in from the console's sign-in page through the OAuth server's login form; ends on the overview. */
export async function signIn(page: Page, http: string, user: { username: string; password: string }): Promise<void> {
  // One browser profile for the whole file: whoever signed in before is forgotten first.
  await page.context().clearCookies();
  await page.goto(`${http}/console`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.fill('#username', user.username);
  await page.fill('#password', user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // No consent page for the console (first party): straight back, code exchanged, session made.
  await page.locator('#signed-in-as').waitFor();
  expect(await page.locator('#signed-in-as').textContent()).toBe(user.username);
  expect(page.url()).toBe(`${http}/console/`);
}

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP allows no injected script). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: unknown[] }> }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} ×${v.nodes.length}`);
}

/**
 * The docs' screenshot of this page, written only when asked (`npm run screenshots` sets
 * AGENTPORT_SCREENSHOTS=1): docs/images is tracked, and a test run leaves `git status` clean.
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.AGENTPORT_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: path.join(IMAGES, name), ...opts });
}

/** Every section of the page has loaded. */
export async function settled(page: Page): Promise<void> {
  await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
}

export async function show(page: Page, http: string, route: string, heading: string): Promise<void> {
  await page.goto(`${http}/console/#/${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await settled(page);
}

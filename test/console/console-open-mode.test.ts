/**
 * The console with authentication off (`auth.mode: none`, loopback only): no sign-in, every page
 * of an administrator, the management API called without any credential, in Chromium.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  s = await startTestServer({ agents: [{ id: 'echo', builtin: 'echo' }] });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

it('opens on the overview with every page, says authentication is off, and lists the API keys', async () => {
  const session = (await (await fetch(`${s.http}/console/session`)).json()) as { signedIn: boolean; open?: boolean; admin: boolean };
  expect(session).toMatchObject({ signedIn: true, open: true, admin: true });
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
  await page.goto(`${s.http}/console/`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual([
    'Overview',
    'Agents',
    'Tasks',
    'Usage',
    'Audit',
    'Connect',
    'API keys',
    'Users',
    'OAuth clients',
    'Settings',
  ]);
  expect(await page.locator('header .who').textContent()).toBe('Authentication is off');
  expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
  await page.goto(`${s.http}/console/#/keys`);
  await page.getByRole('table', { name: 'Keys' }).waitFor();
  expect(await page.locator('.problem').count()).toBe(0);
  expect(problems).toEqual([]);
  await page.close();
});

it('follows a hash change made right after the first render, before the page effects have run', async () => {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(5_000);
  // No animation frames: Preact then runs effects only after its 100 ms fallback timer, which
  // widens the moment between the shell's first render and its hashchange listener.
  await page.addInitScript(() => {
    window.requestAnimationFrame = () => 0;
  });
  await page.goto(`${s.http}/console/`);
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
  await page.evaluate(() => {
    location.hash = '#/keys';
  });
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  await page.close();
});

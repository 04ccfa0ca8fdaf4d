/**
 * The console's Connections page (issue 27, ADR 0035) in a real browser (Debian's Chromium through
 * playwright-core), against two real servers: A fronts B's MCP face with `auth: oauth`. Alice signs
 * in to A's console, sees B's agent not connected, presses Connect (the connect link opens in a new
 * tab), signs in and consents at B as B's user; back on the page the row is connected as B's
 * user, with its scopes and times; Disconnect deletes the tokens, and the row is not connected again.
 * The page has no serious accessibility finding; a server without such agents does not offer it. With AGENTPORT_SCREENSHOTS=1 (`npm run
 * screenshots`) it saves docs/images/console-connections.png.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import type { TestServer } from '../support/server.js';
import { ALICE, BEA, startMcpOAuthPair } from '../auth/remote-oauth/mcp-oauth-pair.js';
import { newPage, screenshot, seriousViolations, show, signIn } from './console-browser.js';

const ALICE_KEY = 'alice-connections-page-key-00001';

let a: TestServer;
let b: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  ({ a, b } = await startMcpOAuthPair(ALICE_KEY, [ALICE]));
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await a?.stop();
  await b?.stop();
});

/** Alice's connection to bee as the API tells it (read with her API key, apart from the browser). */
async function aliceConnection(): Promise<any> {
  const list = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
  return list.connections.find((c: any) => c.remote === 'bee');
}

describe('the Connections page', () => {
  it('connects to a remote through its connect link, shows who the user is there, and disconnects', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, a.http, ALICE);
    // The navigation has the page.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connections' }).waitFor();
    await show(page, a.http, 'connections', 'Connections');
    const row = page.getByRole('row').filter({ has: page.getByText('bee', { exact: true }) });
    await expect.poll(() => row.getByRole('cell').nth(1).textContent()).toBe('not connected');
    expect(await row.getByRole('button', { name: 'Disconnect from bee' }).count()).toBe(0);

    // Connect opens the connect link in a new tab: B's sign-in and consent, then A's "Connected" page.
    const [consent] = await Promise.all([browser.context.waitForEvent('page'), row.getByRole('link', { name: 'Connect to bee' }).click()]);
    consent.setDefaultTimeout(10_000);
    await consent.waitForURL((u) => u.href.startsWith(b.http) && u.pathname.includes('/oauth/interaction/'));
    await consent.fill('#username', BEA.username);
    await consent.fill('#password', BEA.password);
    await consent.getByRole('button', { name: 'Sign in' }).click();
    await consent.getByRole('button', { name: 'Allow' }).click();
    await consent.getByRole('heading', { level: 1, name: 'Connected' }).waitFor();
    await consent.close();

    const stored = await aliceConnection();
    expect(stored).toMatchObject({ status: 'connected', remoteSubject: BEA.username });
    await page.bringToFront();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => row.getByRole('cell').nth(1).textContent()).toBe('connected');
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[2]).toBe(BEA.username);
    expect(cells[3]).toBe(stored.scopes?.join(' ') ?? '–');
    expect(cells[4]).toBe(stored.connectedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'console-connections.png', { fullPage: true });

    await row.getByRole('button', { name: 'Disconnect from bee' }).click();
    await expect.poll(() => row.getByRole('cell').nth(1).textContent()).toBe('not connected');
    expect((await aliceConnection()).status).toBe('not-connected');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('is not offered by a server without an agent that reaches its remote as the user', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, b.http, BEA);
    const links = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(links).toContain('Usage');
    expect(links).not.toContain('Connections');
    expect(problems).toEqual([]);
    await page.close();
  });
});

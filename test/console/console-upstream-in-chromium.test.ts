/**
 * Signing in to the console through the upstream OpenID Provider, in Debian's Chromium
 * (scripts/chromium.mjs) against the real upstream of test/auth/oauth/upstream-idp.ts: the
 * console's Sign in, Agentport's "Sign in with Test IdP", the IdP's own login and consent pages,
 * back through Agentport's callback to the console, signed in as `<issuer>#alice-7f3a` with the
 * member's pages only. A task started from the playground is listed as hers, another owner's is
 * not; a key she makes acts as her; axe-core finds no serious or critical problem.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import { startUpstream, upstreamConfig, type UpstreamIdp } from '../auth/oauth/upstream-idp.js';
import { userMessage } from '../core/tasks/engine-harness.js';
import { rpc, type TestServer } from '../support/server.js';
import { newPage, seriousViolations, show } from './console-browser.js';

let upstream: UpstreamIdp;
let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let account = '';

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  upstream = await startUpstream();
  account = `${upstream.issuer}#alice-7f3a`;
  s = await startOAuthServer({ auth: { oauth: { upstream: { ...upstreamConfig(upstream.issuer), allowedDomains: ['example.com'], userScopes: ['a2a:discover', 'a2a:publish', 'usage:read'] } } } }, []);
  await upstream.attach(`${s.http}/oauth/upstream/callback`);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
  await upstream?.close();
});

/** From the console's sign-in page through the upstream IdP's pages, back to the console's overview. */
async function signInUpstream(page: Page): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${s.http}/console`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
  // The IdP's own pages (another origin: 127.0.0.2).
  await page.waitForURL(`${upstream.issuer}/interaction/**`);
  await page.fill('#upstream-login', 'alice-7f3a');
  await page.getByRole('button', { name: 'Sign in at Test IdP' }).click();
  await page.getByRole('button', { name: 'Allow at Test IdP' }).click();
  // Back through Agentport's callback; no consent page for the console (first party).
  await page.locator('#signed-in-as').waitFor();
  expect(page.url()).toBe(`${s.http}/console/`);
}

describe('the console, signed in at the upstream OpenID Provider', () => {
  it('signs in as <issuer>#<subject>, a member: only the member’s pages, only her own tasks', async () => {
    const other = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('not hers') }, { 'x-api-key': s.firstAdminKey! });
    expect(other.body.result.task.id).toBeTruthy();

    const { page, problems } = await newPage(browser.context);
    await signInUpstream(page);
    expect(await page.locator('#signed-in-as').textContent()).toBe(account);
    expect(await page.locator('.who').textContent()).not.toContain('(admin)');
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual(['Overview', 'Agents', 'Tasks', 'Usage', 'Connect', 'API keys']);
    // What the IdP's test pages logged (no favicon there) is not the console's concern.
    problems.length = 0;

    await show(page, s.http, 'agents', 'Agents');
    await page.getByRole('article', { name: 'Echo echo' }).getByRole('button', { name: 'Chat with Echo' }).click();
    await page.getByLabel('Message', { exact: true }).fill('hello from upstream alice');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');

    await show(page, s.http, 'tasks', 'Tasks');
    await expect.poll(() => page.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual([account]);
    expect(await page.locator('tbody').textContent()).not.toContain(other.body.result.task.id);
    expect(await seriousViolations(page)).toEqual([]);

    // A key of her own acts as her: its task is hers too.
    await show(page, s.http, 'keys', 'API keys');
    await page.fill('input[name=scopes]', 'a2a:publish');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    const sent = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('with her key') }, { 'x-api-key': key });
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await show(page, s.http, 'tasks', 'Tasks');
    await expect.poll(() => page.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual([account, account]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

/**
 * A connect link (issue 27, ADR 0035) in a real browser (Debian's Chromium through playwright-core):
 * opened with no session on A, it goes through A's console sign-in and comes back to itself, then
 * on to B's login and consent, and ends on A's "Connected" page; the same kind of link opened in
 * another A user's browser ends on a refusal page and connects nothing.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../../src/bindings/console/console-assets.js';
import { signIn } from '../../console/console-browser.js';
import { rpc, type TestServer } from '../../support/server.js';
import { ALICE, BEA, startMcpOAuthPair } from './mcp-oauth-pair.js';

const ALICE_KEY = 'alice-connect-browser-key-000001';
const CAROL = { username: 'carol', password: 'carol has a long password here' };

let a: TestServer;
let b: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  ({ a, b } = await startMcpOAuthPair(ALICE_KEY, [ALICE, CAROL]));
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await a?.stop();
  await b?.stop();
});

async function aliceConnectLink(): Promise<string> {
  const r = await rpc(`${a.http}/a2a/bee`, 'SendMessage', { message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { 'x-api-key': ALICE_KEY });
  const task = r.body.result.task;
  expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
  return task.status.message.parts.find((p: any) => p.data?.connectUrl).data.connectUrl;
}

async function aliceConnection(): Promise<string> {
  const list = (await (await fetch(`${a.http}/api/v1/connections`, { headers: { 'x-api-key': ALICE_KEY } })).json()) as any;
  return list.connections.find((c: any) => c.remote === 'bee').status;
}

/** A page in a browser that has forgotten every cookie (one browser profile serves the file). */
async function freshPage(): Promise<Page> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

describe('a connect link in the browser', () => {
  it("opened in another A user's browser: a refusal page, nothing connected", async () => {
    const link = await aliceConnectLink();
    const page = await freshPage();
    await signIn(page, a.http, CAROL);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Not your connect link' }).waitFor();
    expect(new URL(page.url()).origin).toBe(a.http);
    expect(await aliceConnection()).toBe('not-connected');
    await page.close();
  });

  it('opened with no session: signs in at A, comes back to the link, consents at B, connected', async () => {
    const link = await aliceConnectLink();
    const page = await freshPage();
    await page.goto(link);
    // The console's sign-in page, carrying the link in its hash.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/interaction\//);
    expect(page.url().startsWith(a.http)).toBe(true);
    await page.fill('#username', ALICE.username);
    await page.fill('#password', ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back through the link to B's own login.
    await page.waitForURL((u) => u.href.startsWith(b.http) && u.pathname.includes('/oauth/interaction/'));
    await page.fill('#username', BEA.username);
    await page.fill('#password', BEA.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connected' }).waitFor();
    expect(page.url().startsWith(`${a.http}/connect/callback`)).toBe(true);
    expect(await aliceConnection()).toBe('connected');
    await page.close();
  });
});

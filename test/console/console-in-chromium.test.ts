/**
 * The web console end to end, in Debian's Chromium through playwright-core (scripts/chromium.mjs):
 * sign-in through Agentport's own OAuth server (code flow with PKCE, local user), the session
 * cookie and its CSRF header, each page on the management API, an API key created, used, revoked
 * and then refused, the usage page counting the calls just made, the audit page listing the key's
 * creation, a non-admin seeing only their own (and creating and revoking a key of their own), no CSP violation, and axe-core finding no serious or
 * critical accessibility problem on any page. With AGENTPORT_SCREENSHOTS=1 (`npm run screenshots`) it saves each page to docs/images/console-*.png.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startOAuthServer } from '../auth/oauth/support.js';
import { rpc, type TestServer } from '../support/server.js';
import { userMessage } from '../core/tasks/engine-harness.js';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { newPage, screenshot, seriousViolations, settled, show as showAt, signIn as signInAt } from './console-browser.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
const MEMBER = { username: 'bob', password: 'console member password 1', scopes: ['a2a:discover', 'a2a:publish', 'usage:read'] };

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const signIn = (page: Page, user: { username: string; password: string }) => signInAt(page, s.http, user);
const show = (page: Page, route: string, heading: string) => showAt(page, s.http, route, heading);

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer({ usage: { flushIntervalMs: 50 }, agents: [{ id: 'echo', builtin: 'echo' }] }, [ADMIN, MEMBER]);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

describe('the console, served', () => {
  it('/console redirects to /console/; index revalidated, hashed assets immutable, strict CSP, relative asset URLs', async () => {
    const moved = await fetch(`${s.http}/console?x=1`, { redirect: 'manual' });
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe('console/?x=1');
    const index = await fetch(`${s.http}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /src="(\.\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const js = await fetch(new URL(asset!, `${s.http}/console/`));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${s.http}/console/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${s.http}/console/../package.json`)).status).toBe(404);
  });

  it('the landing page and /mcp/config/ link to the console', async () => {
    const landing = (await (await fetch(`${s.http}/`, { headers: { accept: 'application/json' } })).json()) as { links: { console?: string } };
    expect(landing.links.console).toBe(`${s.http}/console/`);
    const { page } = await newPage(browser.context);
    await page.goto(`${s.http}/`);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Agentport console' }).waitFor();
    expect(page.url()).toBe(`${s.http}/console/`);
    await page.goto(`${s.http}/mcp/config/`);
    await page.getByRole('link', { name: 'Open the web console' }).click();
    await page.getByRole('heading', { name: 'Agentport console' }).waitFor();
    expect(page.url()).toBe(`${s.http}/console/`);
    await page.close();
  });

  it('the session cookie alone authenticates nothing: without the CSRF header the call is anonymous', async () => {
    const { page } = await newPage(browser.context);
    await signIn(page, ADMIN);
    const cookies = await browser.context.cookies(s.http);
    const cookie = cookies.find((c) => c.name === 'ap_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const header = `ap_console=${cookie.value}`;
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { cookie: header } })).status).toBe(401);
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { cookie: header, 'x-csrf-token': 'forged' } })).status).toBe(401);
    const csrf = (await page.evaluate(async () => (await (await fetch('session')).json()) as { csrf: string })).csrf;
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { cookie: header, 'x-csrf-token': csrf } })).status).toBe(200);
    // A token of another client makes no console session.
    const other = await fetch(`${s.http}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken: 'a.b.c' }) });
    expect(other.status).toBe(401);
    await page.close();
  });
});

describe('the console, as an administrator', () => {
  let page: Page;
  let problems: string[];
  let keyId = '';

  beforeAll(async () => {
    ({ page, problems } = await newPage(browser.context));
    await signIn(page, ADMIN);
  });

  it('API keys: creates a key (secret shown once), the key works, revoking it makes the API refuse it', async () => {
    await show(page, 'keys', 'API keys');
    await page.fill('input[name=subject]', 'ci-bot');
    await page.fill('input[name=scopes]', 'a2a:publish a2a:discover');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^ap_[0-9a-f]{16}_/);
    keyId = key.split('_')[1]!;
    expect(await page.locator('tbody tr', { hasText: keyId }).locator('td').nth(4).textContent()).toBe('active');

    for (let i = 0; i < 3; i++) {
      const r = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`hello ${i}`) }, { 'x-api-key': key });
      expect(r.status).toBe(200);
      expect(r.body.error).toBeUndefined();
    }
    await screenshot(page, 'console-keys.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
    await expect.poll(() => page.locator('tbody tr', { hasText: keyId }).locator('td').nth(4).textContent()).toBe('revoked');
    const refused = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after revocation') }, { 'x-api-key': key });
    expect(refused.status).toBe(401);
  });

  it('Usage: counts the calls the key just made, grouped by subject', async () => {
    await show(page, 'usage', 'Usage');
    await page.getByRole('checkbox', { name: 'subject' }).check();
    await page.fill('input[name=filter-agent]', 'echo');
    const row = page.locator('tbody tr', { hasText: 'ci-bot' });
    // Records are written in batches (usage.flushIntervalMs 50 here): the page is asked again until they are in.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await settled(page);
          return (await row.count()) ? row.locator('td').nth(2).textContent() : undefined;
        },
        { timeout: 10_000 },
      )
      .toBe('3');
    // The export is the same query as CSV, fetched with the session and handed over as a file.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('usage.csv');
    const csv = readFileSync((await download.path())!, 'utf8').split(/\r?\n/);
    expect(csv[0]).toMatch(/^agent,subject,calls,errors,/);
    expect(csv).toContainEqual(expect.stringMatching(/^echo,ci-bot,3,0,/));
    await screenshot(page, 'console-usage.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Audit: lists the key creation and revocation; the chain verifies', async () => {
    await show(page, 'audit', 'Audit');
    await page.fill('input[name=target]', `apikey:${keyId}`);
    await expect.poll(() => page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['apikey.revoked', 'apikey.created']);
    expect(await page.locator('tbody tr', { hasText: 'apikey.created' }).locator('td').nth(4).textContent()).toBe(ADMIN.username);
    expect(await page.locator('#audit-verification').textContent()).toMatch(/^Chain verified: \d+ records/);
    await page.fill('input[name=target]', '');
    // The whole log again, newest first: the revocation on top, the first user's creation at the bottom.
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(2);
    expect(await page.locator('tbody tr td:nth-child(3)').first().textContent()).toBe('apikey.revoked');
    const seqs = (await page.locator('tbody tr td:nth-child(1)').allTextContents()).map(Number);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    await screenshot(page, 'console-audit.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Audit: past one page of the API (1,000 records), still the newest first', async () => {
    for (let i = 0; i < 1_100; i++) s.audit.record({ action: 'test.bulk', outcome: 'success', actor: 'system', target: `n:${i}` });
    await s.audit.flush();
    await show(page, 'audit', 'Audit');
    await page.fill('input[name=action]', 'test.bulk');
    await expect.poll(() => page.locator('tbody tr td:nth-child(6)').first().textContent()).toBe('n:1099');
    expect(await page.locator('tbody tr').count()).toBe(200);
    expect(await page.locator('tbody tr td:nth-child(6)').last().textContent()).toBe('n:900');
    await page.fill('input[name=action]', '');
  });

  it('Overview: health of storage, bus and push delivery, the calls of the last day, the top agents and users', async () => {
    await show(page, 'overview', 'Overview');
    // One group per hour: the calls of this test all fall in one or two hours.
    const hours = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      const answer = (await (await fetch('../api/v1/usage?bucket=hour&since=2h', { headers: { 'X-CSRF-Token': session.csrf } })).json()) as { groups: unknown[] };
      return answer.groups.length;
    });
    expect(hours).toBeLessThanOrEqual(2);
    expect(await page.locator('.checks li').allTextContents()).toEqual(['storage ok', 'bus ok', 'push ok']);
    expect(Number((await page.locator('#overview-calls').textContent())?.replace(/,/g, ''))).toBeGreaterThanOrEqual(3);
    expect(await page.locator('table', { hasText: 'Agents' }).locator('tbody td').first().textContent()).toBe('echo');
    expect(await page.locator('table', { hasText: 'Users' }).locator('tbody').textContent()).toContain('ci-bot');
    // The console's own calls are attributed to its OAuth client.
    expect(await page.locator('table', { hasText: 'Clients' }).locator('tbody').textContent()).toContain('agentport-console');
    await screenshot(page, 'console-overview.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('Overview: its first contentful paint on a reload is reported (measured, not asserted: docs/console.md "Figures")', async () => {
    await page.reload();
    await page.locator('#overview-calls').waitFor();
    const paint = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      loaded: performance.getEntriesByType('navigation')[0]?.duration,
    }));
    expect(typeof paint.fcp).toBe('number');
    // One line in the test log for the figures; no threshold, the machine is shared.
    console.log(`console overview on reload: first contentful paint ${paint.fcp?.toFixed(0)} ms, navigation ${paint.loaded?.toFixed(0)} ms`);
  });

  it('Agents: the cards, and a playground chat with the echo agent whose answer streams in over A2A', async () => {
    await show(page, 'agents', 'Agents');
    const card = page.getByRole('article', { name: 'Echo echo' });
    expect(await card.locator('dl').textContent()).toContain('Echo');
    await card.getByRole('button', { name: 'Chat with Echo' }).click();
    await page.getByLabel('Message', { exact: true }).fill('hello from the console');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.transcript li.agent pre').allTextContents()).toEqual(['hello from the console']);
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');
    await page.getByText(/^Raw events \(\d+\)$/).click();
    const raw = (await page.locator('#raw-events').textContent())!;
    expect(raw).toContain('"artifactUpdate"');
    expect(raw).toContain('TASK_STATE_COMPLETED');
    // A second turn in the same context.
    await page.getByLabel('Message', { exact: true }).fill('and again');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.transcript li.agent pre').allTextContents()).toEqual(['hello from the console', 'and again']);
    await screenshot(page, 'console-agents.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("Connect: the setup steps with this server's real URLs, each with a copy button", async () => {
    await show(page, 'connect', 'Connect');
    expect(await page.locator('#connect-mcp-url').textContent()).toBe(`${s.http}/mcp`);
    expect(await page.locator('#connect-claude-code pre').first().textContent()).toBe(`claude mcp add --transport http agentport ${s.http}/mcp`);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['ChatGPT', 'Claude (claude.ai and Claude Desktop)', 'Claude Code', 'MCP Inspector', 'A2A clients']);
    await screenshot(page, 'console-connect.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Users: creates a user (password shown once) who can then get a token, and deletes them', async () => {
    await show(page, 'users', 'Users');
    await page.fill('input[name=username]', 'dana');
    await page.fill('input[name=user-scopes]', 'usage:read');
    await page.getByRole('button', { name: 'Create user' }).click();
    const password = (await page.locator('#new-password').textContent())!;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(await page.locator('tbody tr', { hasText: 'dana' }).locator('td').nth(1).textContent()).toBe('usage:read');
    // The admin's own row cannot be deleted from here.
    expect(await page.locator('tbody tr', { hasText: ADMIN.username }).locator('td').nth(3).textContent()).toBe('you');
    await screenshot(page, 'console-users.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete user dana' }).click();
    await expect.poll(() => page.locator('tbody tr', { hasText: 'dana' }).count()).toBe(0);
  });

  it('OAuth clients: registers a machine client (secret shown once) whose credentials get a token, deletes it, and then they do not', async () => {
    await show(page, 'clients', 'OAuth clients');
    await page.fill('input[name=client-name]', 'nightly job');
    await page.selectOption('select[name=kind]', 'machine');
    await page.fill('input[name=client-scopes]', 'a2a:discover');
    await page.getByRole('button', { name: 'Register client' }).click();
    const clientId = (await page.locator('#new-client-id').textContent())!;
    const secret = (await page.locator('#new-client-secret').textContent())!;
    const token = () =>
      fetch(`${s.http}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'a2a:discover' }),
      });
    expect((await token()).status).toBe(200);
    expect(await page.locator('tbody tr', { hasText: clientId }).locator('td').nth(2).textContent()).toBe('client_credentials');
    await screenshot(page, 'console-clients.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: `Delete client ${clientId}` }).click();
    await expect.poll(() => page.locator('tbody tr', { hasText: clientId }).count()).toBe(0);
    expect((await token()).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('sign-out ends the session: the console shows sign-in again and the cookie is refused', async () => {
    const csrf = (await page.evaluate(async () => (await (await fetch('session')).json()) as { csrf: string })).csrf;
    const cookie = (await browser.context.cookies(s.http)).find((c) => c.name === 'ap_console')!.value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await fetch(`${s.http}/api/v1/keys`, { headers: { cookie: `ap_console=${cookie}`, 'x-csrf-token': csrf } })).status).toBe(401);
    await screenshot(page, 'console-sign-in.png');
    // Signing in again asks for the password again, although the OAuth server still knows this browser.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#password').waitFor({ timeout: 10_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});

describe('the console, as a member (no admin scope)', () => {
  it('sees Overview, Agents, Tasks, Usage, Connect and API keys only, and only their own usage; the admin API refuses the session', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, MEMBER);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual(['Overview', 'Agents', 'Tasks', 'Usage', 'Connect', 'API keys']);
    const member = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string; admin: boolean };
      const headers = { 'X-CSRF-Token': session.csrf, Accept: 'application/json' };
      const users = await fetch('../api/v1/users', { headers });
      const usage = (await (await fetch('../api/v1/usage?by=subject&since=1h', { headers })).json()) as { subject?: string };
      return { admin: session.admin, users: users.status, usageSubject: usage.subject };
    });
    expect(member).toEqual({ admin: false, users: 403, usageSubject: MEMBER.username });
    await show(page, 'usage', 'Usage');
    expect(await page.getByRole('checkbox', { name: 'subject' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain(`Your own calls (${MEMBER.username})`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('API keys: creates a key of their own (it acts as them), revokes it, and the API then refuses it; sees no one else’s', async () => {
    // Someone else's key, made by the administrator: never listed for the member.
    const theirs = await fetch(`${s.http}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.firstAdminKey! },
      body: JSON.stringify({ subject: 'someone-else', scopes: ['a2a:discover'] }),
    });
    const theirsId = ((await theirs.json()) as { id: string }).id;
    const { page, problems } = await newPage(browser.context);
    await signIn(page, MEMBER);
    await show(page, 'keys', 'API keys');
    expect(await page.locator('#own-keys-note').textContent()).toContain(MEMBER.username);
    expect(await page.locator('input[name=subject]').count()).toBe(0);
    // Asking for more than they hold is refused, naming the scope.
    await page.fill('input[name=scopes]', 'a2a:publish admin');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('admin');
    await page.fill('input[name=scopes]', 'a2a:publish a2a:discover');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^ap_[0-9a-f]{16}_/);
    const keyId = key.split('_')[1]!;
    const row = page.locator('tbody tr', { hasText: keyId });
    expect(await row.locator('td').nth(1).textContent()).toBe(MEMBER.username);
    expect(await row.locator('td').nth(4).textContent()).toBe('active');
    expect(await page.locator('tbody tr', { hasText: theirsId }).count()).toBe(0);
    expect(new Set(await page.locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set([MEMBER.username]));

    const used = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('my own key') }, { 'x-api-key': key });
    expect(used.status).toBe(200);
    expect(used.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('revoked');
    const refused = await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage('after revocation') }, { 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(problems).toEqual([]);
    await page.close();
  });
});

/**
 * The Settings page in Debian's Chromium: the resolved configuration with where each value came
 * from, and no secret of the configuration anywhere, neither in the page nor in the API's answer
 * (a configured API key, an agent's LLM API key, an audit webhook's Authorization header, a
 * database-style URL password). Consent grants per user on the Users page: a member's grant (the
 * console's own, from their sign-in) listed and revoked by an administrator. axe-core clean;
 * screenshots docs/images/console-settings.png and console-grants.png.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';
import { newPage, screenshot, seriousViolations, show, signIn } from './console-browser.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
const MEMBER = { username: 'bob', password: 'console member password 1', scopes: ['a2a:discover', 'usage:read'] };
const SECRETS = {
  configKey: 'Configured-Api-Key-4b1e9d0c',
  llmKey: 'Llm-Api-Key-a83f20d1',
  auditToken: 'Audit-Webhook-Token-77c2e1',
  urlPassword: 'Url-Password-19fe',
};

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer(
    {
      auth: { apiKeys: [{ key: SECRETS.configKey, subject: 'robot', scopes: ['a2a:discover'] }] },
      audit: { webhook: { url: `http://siem:${SECRETS.urlPassword}@127.0.0.1:9/siem`, headers: { Authorization: `Bearer ${SECRETS.auditToken}` } } },
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'table-expert', builtin: 'table-expert', options: { llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'small', apiKey: SECRETS.llmKey } } },
      ],
    },
    [ADMIN, MEMBER],
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

describe('Settings and consent grants', () => {
  it('shows the resolved configuration with its sources, and no secret reaches the page or the API answer', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await show(page, s.http, 'settings', 'Settings');
    const row = (key: string) => page.locator('tbody tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${key.replace(/[.[\]]/g, '\\$&')}$`) }) });
    expect(await row('server.host').locator('td').allTextContents()).toEqual(['server.host', '127.0.0.1', 'file']);
    expect(await row('limits.sseKeepAliveMs').locator('td').nth(2).textContent()).toBe('default or derived');
    expect(await row('auth.apiKeys[0].key').locator('td').nth(1).textContent()).toBe('[redacted]');
    expect(await row('auth.apiKeys[0].subject').locator('td').nth(1).textContent()).toBe('robot');
    expect(await row('agents[1].options.llm.apiKey').locator('td').nth(1).textContent()).toBe('[redacted]');
    expect(await row('audit.webhook.headers.Authorization').locator('td').nth(1).textContent()).toBe('[redacted]');
    expect(await row('audit.webhook.url').locator('td').nth(1).textContent()).toBe('[redacted]');

    await page.fill('input[name=settings-key]', 'apiKeys');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(3);
    await page.fill('input[name=settings-key]', '');
    await page.selectOption('select[name=settings-source]', 'default');
    expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).not.toContain('file');

    await page.selectOption('select[name=settings-source]', '');
    await screenshot(page, 'console-settings.png', { fullPage: false });
    expect(await seriousViolations(page)).toEqual([]);

    const html = await page.content();
    const answer = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      return (await fetch('../api/v1/settings', { headers: { 'X-CSRF-Token': session.csrf } })).text();
    });
    expect(answer).toContain('"key":"auth.apiKeys[0].key"');
    for (const secret of Object.values(SECRETS)) {
      expect(html).not.toContain(secret);
      expect(answer).not.toContain(secret);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists a user’s consent grants on the Users page, and revokes one', async () => {
    // The member signs in to the console: the console's own client now holds a grant of theirs.
    const member = await newPage(browser.context);
    await signIn(member.page, s.http, MEMBER);
    await member.page.close();

    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await show(page, s.http, 'users', 'Users');
    await page.getByRole('button', { name: `Consent grants of ${MEMBER.username}` }).click();
    const grants = page.getByRole('region', { name: `Consent grants of ${MEMBER.username}` });
    await expect.poll(() => grants.locator('tbody tr td:first-child').allTextContents()).toEqual([expect.stringContaining('agentport-console')]);
    const granted = (await grants.locator('tbody tr td:nth-child(2)').textContent())!.split(/[\s,]+/);
    expect(granted).toContain('usage:read');
    // The console asks for every scope; a member's grant holds only those the member has.
    expect(granted).not.toContain('admin');
    await screenshot(page, 'console-grants.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await grants.getByRole('button', { name: /^Revoke the grant of / }).click();
    await expect.poll(() => grants.locator('tbody').textContent()).toBe('No consent grants.');
    const left = await page.evaluate(async (username) => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      return (await fetch(`../api/v1/users/${username}/grants`, { headers: { 'X-CSRF-Token': session.csrf } })).json();
    }, MEMBER.username);
    expect(left).toEqual({ grants: [] });
    expect(problems).toEqual([]);
    await page.close();
  });
});

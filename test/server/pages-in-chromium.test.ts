/**
 * The page at `/` and an OAuth error page, loaded in a real browser (Debian's Chromium through
 * playwright-core): what a person sees, the stylesheet really applied, and no console errors or
 * CSP violations. A missing Chromium fails this file (scripts/chromium.mjs says how to install it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;

beforeAll(async () => {
  s = await startOAuthServer({
    agents: [
      { id: 'echo', builtin: 'echo' },
      { id: 'table-expert', builtin: 'table-expert' },
      { id: 'secret-agent', builtin: 'echo', visibility: 'extended' },
    ],
  });
  browser = await launchChromium();
  context = browser.context;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

/** Opens a URL and collects what the console reported (errors, CSP violations) while loading it. */
async function open(url: string): Promise<{ page: Page; status: number; csp: string | undefined; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    // An error page's own status is reported as "Failed to load resource"; that one is expected.
    if (m.location().url === url && /^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  const res = await page.goto(url, { waitUntil: 'load' });
  return { page, status: res?.status() ?? 0, csp: res?.headers()['content-security-policy'], problems };
}

describe('the page at /', () => {
  it('lists the public agents with their card links and the MCP URL, never a hidden agent', async () => {
    const { page, status, csp, problems } = await open(`${s.http}/`);
    expect(status).toBe(200);
    expect(csp).toContain("default-src 'none'");
    expect(await page.title()).toBe('Agentport · Agentport');
    const agentRows = await page.locator('tbody tr code').allTextContents();
    expect(agentRows).toEqual(['echo', 'table-expert']);
    const cardLinks = await page.locator('tbody a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(cardLinks).toEqual([`${s.http}/a2a/echo/.well-known/agent-card.json`, `${s.http}/a2a/table-expert/.well-known/agent-card.json`]);
    expect(await page.locator('#mcp-url').textContent()).toBe(`${s.http}/mcp`);
    expect(await page.locator('#connect-claude-code pre').first().textContent()).toBe(`claude mcp add --transport http agentport ${s.http}/mcp`);
    expect(await page.content()).not.toContain('secret-agent');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('is styled by the shared stylesheet (computed styles, not just a <style> tag)', async () => {
    const { page, problems } = await open(`${s.http}/`);
    const style = await page.evaluate(() => {
      const body = getComputedStyle(document.body);
      const header = getComputedStyle(document.querySelector('header.brand')!);
      const pre = getComputedStyle(document.querySelector('pre')!);
      return { maxWidth: body.maxWidth, border: header.borderBottomStyle, borderWidth: header.borderBottomWidth, preBackground: pre.backgroundColor };
    });
    expect(style).toEqual({ maxWidth: `${52 * 16}px`, border: 'solid', borderWidth: '3px', preBackground: 'rgb(245, 247, 251)' });
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('the page at /, copying and on a phone', () => {
  it('every command block has a Copy button that puts exactly that block on the clipboard', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.http });
    const { page, csp, problems } = await open(`${s.http}/`);
    // One inline script, allowed by its hash alone.
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'$/);
    const blocks = await page.locator('.snippet').count();
    expect(blocks).toBeGreaterThan(3);
    expect(await page.locator('.snippet button.copy:visible').count()).toBe(blocks);
    const claude = page.locator('#connect-claude-code .snippet').first();
    await claude.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => claude.getByRole('button').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`claude mcp add --transport http agentport ${s.http}/mcp`);
    await page
      .locator('.snippet', { has: page.locator('#mcp-url') })
      .getByRole('button', { name: 'Copy' })
      .click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`${s.http}/mcp`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('at 390 px nothing runs off the screen: long commands wrap inside their blocks', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${s.http}/`);
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      widestBlock: Math.max(...[...document.querySelectorAll('pre')].map((p) => p.scrollWidth - p.clientWidth)),
    }));
    expect(widths).toEqual({ page: 390, viewport: 390, widestBlock: 0 });
    await page.close();
  });
});

describe('an OAuth error page', () => {
  it('/oauth/authorize without client_id: the error in words, styled like the login page, no CSP violation', async () => {
    const { page, status, csp, problems } = await open(`${s.http}/oauth/authorize?response_type=code`);
    expect(status).toBe(400);
    expect(csp).toContain("default-src 'none'");
    expect(await page.locator('h1').textContent()).toBe('This sign-in cannot continue');
    expect(await page.locator('.error code').textContent()).toBe('invalid_request');
    expect(await page.locator('.error').textContent()).toContain('client_id');
    const style = await page.evaluate(() => ({ maxWidth: getComputedStyle(document.body).maxWidth, errorBorder: getComputedStyle(document.querySelector('.error')!).borderLeftColor }));
    expect(style).toEqual({ maxWidth: `${28 * 16}px`, errorBorder: 'rgb(176, 0, 32)' });
    expect(problems).toEqual([]);
    await page.close();
  });
});

/**
 * How the console reads, in Debian's Chromium at 1366 px and at 390 px (a phone): the Overview's
 * hourly charts with one hour of data (one narrow bar at its hour, distinct hours at the axis
 * ends, no text over a bar), Settings' Source column on one line, usage rows without an agent
 * labelled by what they were, the card's signers in the CLI's wording, and at 390 px every page
 * and its navigation within the screen. Screenshots (docs/images/console-*-1366.png, -390.png)
 * only under `npm run screenshots`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { decodeProtectedHeader } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import { userMessage } from '../core/tasks/engine-harness.js';
import { rpc, type TestServer } from '../support/server.js';
import { newPage, screenshot, seriousViolations, settled, show, signIn } from './console-browser.js';

const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer({ usage: { flushIntervalMs: 50 }, agents: [{ id: 'echo', builtin: 'echo' }] }, [ADMIN]);
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser.context));
  await page.setViewportSize({ width: 1366, height: 900 });
  await signIn(page, s.http, ADMIN);
  // One hour of data: a few agent calls now (and the console's own calls while signing in).
  const key = await page.evaluate(async () => {
    const session = (await (await fetch('session')).json()) as { csrf: string };
    const res = await fetch('../api/v1/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf },
      body: JSON.stringify({ subject: 'layout-bot', scopes: ['a2a:publish', 'a2a:discover'] }),
    });
    return ((await res.json()) as { key: string }).key;
  });
  for (let i = 0; i < 3; i++) expect((await rpc(`${s.http}/a2a/echo`, 'SendMessage', { message: userMessage(`call ${i}`) }, { 'x-api-key': key })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The drawn chart's geometry: bars (with their heights), x-axis labels and every text, in page pixels. */
async function chartGeometry(figure: ReturnType<Page['locator']>) {
  return figure.evaluate((f) => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    const svg = f.querySelector('svg')!;
    return {
      plot: box(svg),
      bars: [...svg.querySelectorAll('.mark-rect.role-mark path')].map(box),
      xLabels: [...svg.querySelectorAll('.role-axis')]
        .filter((a) => (a.getAttribute('aria-label') ?? '').startsWith('X-axis'))
        .flatMap((a) => [...a.querySelectorAll('.role-axis-label text')].map((t) => t.textContent ?? '')),
      texts: [...svg.querySelectorAll('text')].map(box),
    };
  });
}

describe('the console at 1366 px', () => {
  it('Overview: with one hour of data, one narrow bar at that hour, distinct axis ends, no text over a bar', async () => {
    await show(page, s.http, '', 'Overview');
    const figure = page.locator('figure.vega-chart', { hasText: 'Calls and errors per hour' });
    await expect.poll(() => figure.getAttribute('aria-busy')).toBe('false');
    const g = await chartGeometry(figure);
    const drawn = g.bars.filter((b) => b.height > 0.5);
    // Calls in this hour (and perhaps the one before, at an hour's turn): never a block across the chart.
    expect(drawn.length).toBeGreaterThanOrEqual(1);
    for (const bar of drawn) expect(bar.width).toBeLessThan(g.plot.width / 20);
    expect(g.xLabels.length).toBeGreaterThan(2);
    expect(g.xLabels[0]).not.toBe(g.xLabels.at(-1));
    expect(new Set(g.xLabels).size).toBe(g.xLabels.length);
    for (const t of g.texts) for (const bar of drawn) expect(overlaps(t, bar)).toBe(false);
    const latency = page.locator('figure.vega-chart', { hasText: 'p95 latency per hour' });
    await expect.poll(() => latency.getAttribute('aria-busy')).toBe('false');
    await screenshot(page, 'console-overview-1366.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Settings: a table whose Source column stays on one line', async () => {
    await show(page, s.http, 'settings', 'Settings');
    const lines = await page.locator('tbody tr td:nth-child(3)').evaluateAll((cells) =>
      cells.map((c) => {
        const range = document.createRange();
        range.selectNodeContents(c);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      }),
    );
    expect(lines.length).toBeGreaterThan(20);
    expect(new Set(lines)).toEqual(new Set([1]));
    await screenshot(page, 'console-settings-1366.png');
  });

  it('Usage: calls without an agent are labelled by what they were, never "(none)"', async () => {
    await show(page, s.http, 'usage', 'Usage');
    const agents = page.locator('tbody tr td:nth-child(1)');
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await settled(page);
          return agents.allTextContents();
        },
        { timeout: 10_000 },
      )
      .toEqual(expect.arrayContaining(['echo', '(no agent: management API)', '(no agent: OAuth server)']));
    expect(await agents.allTextContents()).not.toContain('(none)');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('Agents: the card says who signed it, as the CLI does', async () => {
    const card = (await (await fetch(`${s.http}/a2a/echo/.well-known/agent-card.json`)).json()) as { signatures?: Array<{ protected: string; signature: string }> };
    const kids = [...new Set((card.signatures ?? []).map((sig) => decodeProtectedHeader(sig).kid))];
    expect(kids).toHaveLength(1);
    await show(page, s.http, 'agents', 'Agents');
    expect(await page.locator('#signed-echo').textContent()).toBe(`yes, by key ${kids[0]}`);
  });
});

describe('the console at 390 px', () => {
  const pages: Array<[string, string]> = [
    ['', 'Overview'],
    ['agents', 'Agents'],
    ['tasks', 'Tasks'],
    ['usage', 'Usage'],
    ['audit', 'Audit'],
    ['connect', 'Connect'],
    ['keys', 'API keys'],
    ['users', 'Users'],
    ['clients', 'OAuth clients'],
    ['settings', 'Settings'],
  ];

  it('every page and its navigation fit the screen: no sideways scrolling, every link reachable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [route, heading] of pages) {
      await show(page, s.http, route, heading);
      const fit = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        // What sticks out, named, so that a failure says where to look.
        wide: [...document.querySelectorAll('main *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap, .vega-drawing'))
          .slice(0, 3)
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
        nav: [...document.querySelectorAll('header.top nav a')].map((a) => Math.round(a.getBoundingClientRect().right)).filter((right) => right > window.innerWidth),
      }));
      expect({ route, ...fit }).toEqual({ route, page: 390, nav: [], wide: [] });
      if (route === '' || route === 'agents') await screenshot(page, `console-${route || 'overview'}-390.png`, { fullPage: true });
    }
    // The navigation works by touch: the last link is on screen and opens its page.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(problems).toEqual([]);
  });
});

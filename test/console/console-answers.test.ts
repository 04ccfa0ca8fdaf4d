/**
 * Answers rendered in the console, in Debian's Chromium: the Table Expert (deterministic planner,
 * generated retail sample, no model) asked a question in the playground answers with markdown, a
 * table of its rows and a Vega-Lite chart drawn as SVG marks (with the CSP's no-eval rule in force,
 * so Vega runs on its expression interpreter); the same answer on the task's page. axe-core finds
 * no serious or critical problem. Screenshot: docs/images/console-table-expert.png. A message of
 * text, data and file parts sent from the playground comes back from the echo agent part by part.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';
import { newPage, screenshot, seriousViolations, show, signIn } from './console-browser.js';

const SCRIPTED = path.resolve(fileURLToPath(new URL('../fixtures/agents/scripted-text-agent.mjs', import.meta.url)));
const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer(
    {
      agents: [
        { id: 'table-expert', builtin: 'table-expert' },
        { id: 'scripted', module: SCRIPTED },
        { id: 'echo', builtin: 'echo' },
      ],
    },
    [ADMIN],
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

async function openPlayground(page: Page, name: string, id: string): Promise<void> {
  await show(page, s.http, 'agents', 'Agents');
  await page
    .getByRole('article', { name: `${name} ${id}` })
    .getByRole('button', { name: `Chat with ${name}` })
    .click();
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The bars Vega drew: SVG paths inside the bar mark's group (Vega names it `mark-rect`). */
const bars = (scope: Locator) => scope.locator('figure.vega-chart svg g.mark-rect path');

describe('answers rendered as answers', () => {
  it('the Table Expert’s answer shows as markdown, a table and a drawn chart, in the playground and on its task page', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await openPlayground(page, 'Table Expert', 'table-expert');
    await say(page, 'Number of orders by status');
    await expect.poll(() => page.locator('#task-state').textContent(), { timeout: 30_000 }).toBe('Task state: completed');

    const answer = page.locator('.transcript li.agent').last();
    // markdown: rendered, not shown as written
    expect(await answer.locator('.part-markdown').count()).toBeGreaterThan(0);
    expect(await answer.locator('.part-markdown').first().textContent()).not.toContain('**');
    // the rows as a table: one row per status
    const table = answer.locator('table.data-part');
    expect(await table.locator('th').allTextContents()).toEqual(['status', 'orders_count']);
    const statuses = await table.locator('tbody tr td:first-child').allTextContents();
    expect(statuses.length).toBeGreaterThan(1);
    // the chart: an SVG with one bar per row, drawn by Vega
    await expect.poll(() => bars(answer).count(), { timeout: 20_000 }).toBe(statuses.length);
    // each bar is labelled with its row for screen readers (Vega-Lite's ARIA output)
    expect(await bars(answer).first().getAttribute('role')).toBe('graphics-symbol');
    expect(await bars(answer).first().getAttribute('aria-label')).toContain(`status: ${statuses[0]}`);
    expect(await answer.locator('figure.vega-chart svg text').allTextContents()).toEqual(expect.arrayContaining(statuses));
    await screenshot(page, 'console-table-expert.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // The task's own page renders the same artifact.
    await show(page, s.http, 'tasks', 'Tasks');
    await page.fill('input[name=task-agent]', 'table-expert');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr').first().getByRole('link').click();
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('completed');
    const artifact = page.locator('section.artifact').first();
    expect(await artifact.locator('table.data-part th').allTextContents()).toEqual(['status', 'orders_count']);
    await expect.poll(() => bars(artifact).count(), { timeout: 20_000 }).toBe(statuses.length);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('an input-required turn is answered in the playground, and the same task finishes', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await openPlayground(page, 'Scripted', 'scripted');
    await say(page, 'ask for a colour');
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: input-required');
    expect(await page.locator('.transcript li.agent').last().textContent()).toContain('which one?');
    const raw = () => page.locator('#raw-events').textContent();
    const asked = /"taskId":\s*"([^"]+)"/.exec((await raw())!)?.[1];
    expect(asked).toBeTruthy();

    // The answer continues the waiting task (its taskId is sent) rather than starting another.
    await say(page, 'the blue one');
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');
    expect(await page.locator('.transcript li.agent').last().textContent()).toBe('Scriptedthe blue one');
    const ids = new Set([...(await raw())!.matchAll(/"taskId":\s*"([^"]+)"/g)].map((m) => m[1]));
    expect([...ids]).toEqual([asked]);
    expect(await seriousViolations(page)).toEqual([]);

    // The task's page: one task, its whole conversation, completed.
    await page.goto(`${s.http}/console/#/tasks/scripted/${asked}`);
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('completed');
    const transcript = await page.locator('.transcript').textContent();
    expect(transcript).toContain('ask for a colour');
    expect(transcript).toContain('the blue one');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('sends text, data and file parts from the playground, and shows each part of the answer', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await openPlayground(page, 'Echo', 'echo');
    await page.getByLabel('Message', { exact: true }).fill('three parts');
    await page.getByText('Data and file parts').click();
    await page.getByLabel('Data part (JSON)').fill('not json');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('The data part is not JSON.');
    await page.getByLabel('Data part (JSON)').fill('[{"city":"Oslo","people":709037}]');
    await page.getByLabel('File part').setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');
    const answer = page.locator('.transcript li.agent').last();
    expect(await answer.locator('pre.part-text').textContent()).toBe('three parts');
    expect(await answer.locator('table.data-part tbody tr').allTextContents()).toEqual(['Oslo709037']);
    expect(await answer.textContent()).toContain('File hello.txt (text/plain)');
    // the file went out inline, base64, and came back the same (the echo's artifact in the raw events)
    expect(await page.locator('.transcript li.user').last().textContent()).toContain('File hello.txt');
    expect(await page.locator('#raw-events').textContent()).toMatch(/"raw":\s*"aGVsbG8="/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists an agent’s MCP tools on its card and calls one from the playground, with the raw exchange', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, ADMIN);
    await openPlayground(page, 'Echo', 'echo');
    const card = page.getByRole('article', { name: 'Echo echo' });
    await expect.poll(() => card.locator('dd.mcp-tools').textContent()).toMatch(/^echo_/);
    const tool = (await card.locator('dd.mcp-tools').textContent())!.split(', ')[0]!;
    const mcp = page.getByRole('region', { name: 'MCP tools' });
    expect(await mcp.getByLabel('Tool').inputValue()).toBe(tool);
    // The tool's schema makes a form (one empty `message` field); the raw JSON box is one tick away.
    expect(await mcp.getByLabel('message').inputValue()).toBe('');
    await mcp.getByLabel('Edit the arguments as raw JSON').check();
    await mcp.getByLabel('Arguments (JSON)').fill('{"message": "hello over MCP"}');
    await mcp.getByRole('button', { name: 'Call tool' }).click();
    await expect.poll(() => page.locator('#mcp-result pre.part-text').first().textContent()).toContain('hello over MCP');
    expect(await page.locator('#mcp-raw').textContent()).toContain('"method":"tools/call"');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'console-mcp-tools.png', { fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});

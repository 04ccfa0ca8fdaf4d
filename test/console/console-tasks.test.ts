/**
 * The console's Tasks pages in Debian's Chromium (scripts/chromium.mjs): a member's task and an
 * administrator's, started from the playground and left waiting for input; the list filtered by
 * agent, a member seeing only their own; the task page following the task live over
 * SubscribeToTask and showing CANCELED when its Cancel button is pressed; an administrator reading
 * another owner's task; axe-core finding no serious or critical problem. Screenshots go to
 * docs/images/console-tasks.png and console-task.png.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';
import { newPage, screenshot, seriousViolations, settled, show, signIn } from './console-browser.js';

const SCRIPTED = path.resolve(fileURLToPath(new URL('../fixtures/agents/scripted-text-agent.mjs', import.meta.url)));
const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
const MEMBER = { username: 'bob', password: 'console member password 1', scopes: ['a2a:discover', 'a2a:publish'] };

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer(
    {
      agents: [
        { id: 'echo', builtin: 'echo' },
        { id: 'scripted', module: SCRIPTED },
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

/** From the playground: a scripted task that asks for input and so stays open. */
async function startWaitingTask(page: Page): Promise<void> {
  await show(page, s.http, 'agents', 'Agents');
  await page.getByRole('article', { name: 'Scripted scripted' }).getByRole('button', { name: 'Chat with Scripted' }).click();
  await page.getByLabel('Message', { exact: true }).fill('ask');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: input-required');
}

/** How often the console reads a followed task list again (console/src/pages/tasks.tsx). */
const FOLLOW_MS = 3_000;

const rowsOf = (page: Page) => page.locator('tbody tr');
const cells = async (page: Page, column: number) => page.locator(`tbody tr td:nth-child(${column})`).allTextContents();

describe('the Tasks pages', () => {
  it('a member sees only their own tasks, and the API refuses them another owner', async () => {
    const { page, problems } = await newPage(browser.context);
    await signIn(page, s.http, MEMBER);
    await startWaitingTask(page);
    await show(page, s.http, 'tasks', 'Tasks');
    expect(await page.locator('input[name=task-owner]').count()).toBe(0);
    await expect.poll(() => cells(page, 5)).toEqual([MEMBER.username]);
    expect(await cells(page, 4)).toEqual(['input-required']);
    // Each task with what it was about: its first message.
    expect(await cells(page, 2)).toEqual(['ask']);
    const refused = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      return (await fetch('../api/v1/tasks?owner=ops', { headers: { 'X-CSRF-Token': session.csrf } })).status;
    });
    expect(refused).toBe(403);
    expect(await seriousViolations(page)).toEqual([]);

    // A finished task whose artifact holds a result set: its rows are shown as a table.
    await show(page, s.http, 'agents', 'Agents');
    await page.getByRole('article', { name: 'Scripted scripted' }).getByRole('button', { name: 'Chat with Scripted' }).click();
    await page.getByLabel('Message', { exact: true }).fill('rows');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');
    await show(page, s.http, 'tasks', 'Tasks');
    await page.selectOption('select[name=task-state]', 'TASK_STATE_COMPLETED');
    await expect.poll(() => cells(page, 4)).toEqual(['completed']);
    await rowsOf(page).first().getByRole('link').click();
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('completed');
    const table = page.getByRole('region', { name: 'Artifact answer' }).locator('table');
    expect(await table.locator('th').allTextContents()).toEqual(['city', 'people']);
    expect(await table.locator('tbody tr').allTextContents()).toEqual(['Oslo709037', 'Bergen291189']);
    expect(await page.getByRole('region', { name: 'Artifact answer' }).locator('pre.part-text').textContent()).toBe('Two cities.');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an administrator lists every owner’s tasks by agent, opens one, cancels it and sees CANCELED arrive live', async () => {
    const { page, problems } = await newPage(browser.context);
    // The page's clock runs as the real one, but the test can move it on: a followed list is read
    // again every 3 s (FOLLOW_MS in console/src/pages/tasks.tsx), which the test need not wait out.
    await page.clock.install();
    await signIn(page, s.http, ADMIN);
    await startWaitingTask(page);
    // The overview counts the tasks running now: both waiting tasks for the administrator (the
    // member's from the test before, and this one).
    await show(page, s.http, '', 'Overview');
    const waiting = page.locator('#overview-running div', { has: page.locator('dt', { hasText: /^waiting for input$/ }) }).locator('dd');
    await expect.poll(() => waiting.textContent()).toBe('2');
    expect(await seriousViolations(page)).toEqual([]);
    // A finished task of another agent, which the agent filter leaves out.
    await show(page, s.http, 'agents', 'Agents');
    await page.getByRole('article', { name: 'Echo echo' }).getByRole('button', { name: 'Chat with Echo' }).click();
    await page.getByLabel('Message', { exact: true }).fill('done at once');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');

    await show(page, s.http, 'tasks', 'Tasks');
    await expect.poll(() => rowsOf(page).count()).toBe(4);
    // Followed, the list shows a task started elsewhere without Refresh.
    await page.check('input[name=task-follow]');
    const started = await page.evaluate(async () => {
      const session = (await (await fetch('session')).json()) as { csrf: string };
      const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'started elsewhere' }] } } };
      const res = await fetch('../a2a/echo', { method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'X-CSRF-Token': session.csrf }, body: JSON.stringify(body) });
      return ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
    });
    // The next reading of the followed list is due within 3 s: brought forward, not waited for.
    await page.clock.fastForward(FOLLOW_MS);
    await expect.poll(() => rowsOf(page).count(), { timeout: 8000 }).toBe(5);
    expect(await rowsOf(page).first().textContent()).toContain(started);
    await page.uncheck('input[name=task-follow]');
    await screenshot(page, 'console-tasks.png', { fullPage: true });
    await page.fill('input[name=task-agent]', 'scripted');
    await expect.poll(async () => (await cells(page, 5)).sort()).toEqual([MEMBER.username, MEMBER.username, ADMIN.username].sort());
    expect(await cells(page, 3)).toEqual(['scripted', 'scripted', 'scripted']);
    await page.fill('input[name=task-owner]', ADMIN.username);
    await page.selectOption('select[name=task-state]', 'TASK_STATE_COMPLETED');
    await expect.poll(() => page.locator('tbody').textContent()).toBe('No tasks match.');
    await page.selectOption('select[name=task-state]', '');
    await expect.poll(() => cells(page, 5)).toEqual([ADMIN.username]);
    await settled(page);
    expect(await seriousViolations(page)).toEqual([]);

    await rowsOf(page).first().getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Task' }).waitFor();
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('input-required (following live)');
    expect(await page.locator('.transcript').textContent()).toContain('ask');
    expect(await page.locator('main').textContent()).toContain('which one?');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel task' }).click();
    // The page reads nothing after the click: the new state comes in on the task's event stream.
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('canceled');
    expect(await page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    // The event log, read again as the task changed: created, asked for input, canceled, in order.
    const log = page.locator('table', { has: page.locator('caption', { hasText: 'stored events' }) });
    await expect.poll(async () => (await log.locator('tbody tr td:nth-child(4)').allTextContents()).at(-1)).toContain('canceled');
    expect(await log.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['task created', 'status', 'status']);
    expect(await log.locator('tbody tr td:nth-child(1)').allTextContents()).toEqual(['1', '2', '3']);
    expect(await page.locator('main').textContent()).toContain('No push notification configs');
    await screenshot(page, 'console-task.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // Another owner's task: read through the management API, neither followed nor cancellable here.
    await show(page, s.http, 'tasks', 'Tasks');
    await page.fill('input[name=task-owner]', MEMBER.username);
    await page.selectOption('select[name=task-state]', 'TASK_STATE_INPUT_REQUIRED');
    await expect.poll(() => cells(page, 5)).toEqual([MEMBER.username]);
    await rowsOf(page).first().getByRole('link').click();
    await expect.poll(() => page.locator('#task-page-state').textContent()).toBe('input-required');
    expect(await page.locator('.facts').textContent()).toContain(`Owner${MEMBER.username}`);
    expect(await page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
    // Two tasks' pages, four lists and five accessibility scans in one flow: 10 s alone, over
    // 30 s once inside the loaded suite on a slow 2-core machine (session 36's clean clone).
  }, 90_000);
});

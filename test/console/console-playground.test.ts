/**
 * The console's playground in Debian's Chromium (scripts/chromium.mjs), as someone who keeps it
 * open: Enter sends and Shift+Enter starts a new line; each agent and each conversation has its
 * own URL, which opens the conversation again after a reload; the last conversations are listed
 * with their first message; the state shown is the task's (canceled after Cancel, failed,
 * input-required and then completed); a send the server refuses (413) keeps the typed message;
 * MCP tool arguments are a form made from the tool's input schema, with raw JSON still available.
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
import { newPage, screenshot, seriousViolations, show, signIn } from './console-browser.js';

const AGENT = path.resolve(fileURLToPath(new URL('../fixtures/agents/playground-agent.ts', import.meta.url)));
const ADMIN = { username: 'ops', password: 'console admin password 1', scopes: ['admin'] };
/** The server's body limit here: a message longer than this is refused with 413. */
const BODY_BYTES = 16 * 1024;

let s: TestServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  s = await startOAuthServer({ limits: { bodyBytes: BODY_BYTES }, agents: [{ id: 'playground', module: AGENT }] }, [ADMIN]);
  browser = await launchChromium();
  ({ page, problems } = await newPage(browser.context));
  await signIn(page, s.http, ADMIN);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

const agentTurns = () => page.locator('.transcript li.agent pre').allTextContents();
const userTurns = () => page.locator('.transcript li.user pre').allTextContents();
const taskState = () => page.locator('#task-state').textContent();
const message = () => page.getByLabel('Message', { exact: true });
const recent = () => page.getByRole('navigation', { name: 'Recent conversations' }).locator('ol li a').allTextContents();
/** The conversation id in the page's URL (`#/agents/playground/{contextId}`). */
const contextInUrl = () => /#\/agents\/playground\/([^/]+)$/.exec(page.url())?.[1];

describe('the playground', () => {
  it('has a URL per agent; Enter sends, Shift+Enter adds a line; the conversation gets its own URL', async () => {
    await show(page, s.http, 'agents', 'Agents');
    await page.getByRole('article', { name: 'Playground playground' }).getByRole('button', { name: 'Chat with Playground' }).click();
    await page.waitForURL(`${s.http}/console/#/agents/playground`);
    await message().fill('hello there');
    await message().press('Enter');
    await expect.poll(agentTurns).toEqual(['hello there']);
    await expect.poll(taskState).toBe('Task state: completed');
    await expect.poll(contextInUrl).toMatch(/^[0-9a-f-]{36}$/);

    await message().fill('line one');
    await message().press('Shift+Enter');
    await message().pressSequentially('line two');
    expect(await message().inputValue()).toBe('line one\nline two');
    expect(await agentTurns()).toEqual(['hello there']);
    await message().press('Enter');
    await expect.poll(agentTurns).toEqual(['hello there', 'line one\nline two']);
    expect(await message().inputValue()).toBe('');
  });

  it('opens the conversation again from its URL after a reload, and lists it with its first message', async () => {
    const contextId = contextInUrl();
    await page.reload();
    await expect.poll(agentTurns).toEqual(['hello there', 'line one\nline two']);
    expect(await userTurns()).toEqual(['hello there', 'line one\nline two']);
    expect(await taskState()).toBe('Task state: completed');
    expect(contextInUrl()).toBe(contextId);
    await expect.poll(recent).toEqual(['hello there']);
  });

  it('keeps the typed message when the server refuses the send (413)', async () => {
    const long = 'x'.repeat(BODY_BYTES + 100);
    await message().fill(long);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/exceeds 16384 bytes/);
    // Compared by length first: a failure prints no 16 KB string.
    expect((await message().inputValue()).length).toBe(long.length);
    expect(await message().inputValue()).toBe(long);
    expect(await userTurns()).toEqual(['hello there', 'line one\nline two']);
  });

  it('shows the task’s state: canceled after Cancel, failed, input-required and then completed', async () => {
    await page.getByRole('link', { name: 'New conversation' }).click();
    await page.waitForURL(`${s.http}/console/#/agents/playground`);
    await expect.poll(agentTurns).toEqual([]);
    // The draft stays in the composer across conversations: it is cleared here by hand.
    await message().fill('');

    await message().fill('hold on');
    await message().press('Enter');
    await expect.poll(taskState).toBe('Task state: working');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(taskState).toBe('Task state: canceled');

    await page.getByRole('link', { name: 'New conversation' }).click();
    await message().fill('fail the disk is full');
    await message().press('Enter');
    await expect.poll(taskState).toBe('Task state: failed');
    expect(await agentTurns()).toContain('the disk is full');

    await page.getByRole('link', { name: 'New conversation' }).click();
    await message().fill('ask me');
    await message().press('Enter');
    await expect.poll(taskState).toBe('Task state: input-required');
    expect(await agentTurns()).toEqual(['which city?']);
    await message().fill('Oslo');
    await message().press('Enter');
    await expect.poll(taskState).toBe('Task state: completed');
    expect(await agentTurns()).toEqual(['which city?', 'going to Oslo']);
  });

  it('lists the last conversations newest first; each opens where it was left', async () => {
    await expect.poll(recent).toEqual(['ask me', 'fail the disk is full', 'hold on', 'hello there']);
    await page.getByRole('navigation', { name: 'Recent conversations' }).getByRole('link', { name: 'hold on' }).click();
    await expect.poll(userTurns).toEqual(['hold on']);
    expect(await taskState()).toBe('Task state: canceled');
    await page.getByRole('navigation', { name: 'Recent conversations' }).getByRole('link', { name: 'hello there' }).click();
    await expect.poll(agentTurns).toEqual(['hello there', 'line one\nline two']);
    await screenshot(page, 'console-playground.png', { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('MCP tools: the arguments form follows the schema; raw JSON edits the same arguments', async () => {
    const result = async () => JSON.parse((await page.locator('#mcp-result pre').first().textContent()) ?? '') as unknown;
    // The agent's tools: its skill (`playground_talk`) and its own `plan_trip`.
    await page.locator('#mcp-tool').selectOption('plan_trip');
    // The schema's default is filled in; required fields are checked before any call.
    expect(await page.getByLabel('nights').inputValue()).toBe('2');
    await page.getByRole('button', { name: 'Call tool' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Fill in the required arguments: city, season.');

    await page.getByLabel('city').fill('Oslo');
    await page.getByLabel('season').selectOption('winter');
    await page.getByLabel('budget').fill('12.5');
    await page.getByLabel('pets').check();
    await page.getByLabel('stops').fill('["Bergen", "Voss"]');
    await page.getByRole('button', { name: 'Call tool' }).click();
    await expect.poll(result).toEqual({ city: 'Oslo', season: 'winter', nights: 2, budget: 12.5, pets: true, stops: ['Bergen', 'Voss'] });

    await page.getByLabel('Edit the arguments as raw JSON').check();
    expect(JSON.parse(await page.getByLabel('Arguments (JSON)').inputValue())).toEqual({ city: 'Oslo', season: 'winter', nights: 2, budget: 12.5, pets: true, stops: ['Bergen', 'Voss'] });
    await page.getByLabel('Arguments (JSON)').fill('{"city": "Rome", "season": "summer"}');
    await page.getByRole('button', { name: 'Call tool' }).click();
    await expect.poll(result).toEqual({ city: 'Rome', season: 'summer' });
    // Back to the form: it shows what the JSON said.
    await page.getByLabel('Edit the arguments as raw JSON').uncheck();
    expect(await page.getByLabel('city').inputValue()).toBe('Rome');
    expect(await page.getByLabel('nights').inputValue()).toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    // The refused send above is the only failed load.
    expect(problems.filter((p) => !/status of 413/.test(p))).toEqual([]);
  });
});

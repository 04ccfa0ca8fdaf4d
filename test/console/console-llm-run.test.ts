/**
 * An LLM agent in the console, in Debian's Chromium (scripts/chromium.mjs): a member chats with it
 * in the playground and gets its streamed answer; its task page shows the run as a timeline built
 * from the step records — each model call with its tokens (cached ones too) and latency, the tool
 * call with its arguments and a link to the sub-task, the result — growing live while the run goes
 * on; the link opens the sub-task, which is the member's too. axe-core finds no serious problem.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import { BUILT_CONSOLE_DIR } from '../../src/bindings/console/console-assets.js';
import { ScriptedModel } from '../agents/llm/scripted-models.js';
import { startOAuthServer } from '../auth/oauth/support.js';
import type { TestServer } from '../support/server.js';
import { newPage, screenshot, seriousViolations, show, signIn } from './console-browser.js';

const MEMBER = { username: 'bob', password: 'console member password 1', scopes: ['a2a:discover', 'a2a:publish'] };
const ANSWER = 'The echo said traced.';

let s: TestServer;
let model: ScriptedModel;
let browser: Awaited<ReturnType<typeof launchChromium>>;
/** opened by the test: the first model call waits for it, so the task page sees every step arrive */
let releaseFirstCall!: () => void;

beforeAll(async () => {
  if (!existsSync(path.join(BUILT_CONSOLE_DIR, 'index.html'))) throw new Error('The console is not built: run npm run build (or npm run build:console) first');
  const gate = new Promise<void>((resolve) => (releaseFirstCall = resolve));
  model = new ScriptedModel('openai', (r) => {
    if (r.toolResults.length > 0) return { text: ANSWER, promptTokens: 1800, completionTokens: 7 };
    model.hold = gate;
    return { toolCalls: [{ name: 'echo__echo', arguments: { request: 'traced' } }], promptTokens: 1200, completionTokens: 9, cachedTokens: 640 };
  });
  const baseUrl = await model.listen();
  s = await startOAuthServer(
    {
      agents: [
        { id: 'analyst', llm: { provider: 'openai', baseUrl, model: 'gpt-scripted', instructions: 'You answer with what echo says.', tools: ['echo'] } },
        { id: 'echo', builtin: 'echo' },
      ],
    },
    [MEMBER],
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  releaseFirstCall?.();
  await browser?.close();
  await s?.stop();
  await model?.close();
});

it('the playground chats with an LLM agent, and its task page shows the run as a timeline of steps', async () => {
  const { page, problems } = await newPage(browser.context);
  await signIn(page, s.http, MEMBER);
  await show(page, s.http, 'agents', 'Agents');
  await page.getByRole('article', { name: 'analyst analyst' }).getByRole('button', { name: 'Chat with analyst' }).click();
  await page.getByLabel('Message').fill('What does echo say?');
  await page.getByRole('button', { name: 'Send' }).click();
  // The run is in its first model call, held: the task is WORKING, no step written yet.
  await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: working');
  await expect.poll(() => model.requests.length).toBe(1);
  const taskId = /"taskId":"([^"]+)"/.exec((await page.locator('#raw-events').textContent()) ?? '')?.[1];
  expect(taskId).toBeDefined();

  // The task page, opened while the run goes on, follows it live.
  const { page: taskPage, problems: taskProblems } = await newPage(browser.context);
  await show(taskPage, s.http, `tasks/analyst/${taskId}`, 'Task');
  await expect.poll(() => taskPage.locator('#task-page-state').textContent()).toBe('working (following live)');
  expect(await taskPage.locator('.run-timeline').count()).toBe(0);
  const steps = taskPage.locator('.run-timeline > li');

  releaseFirstCall();
  await expect.poll(() => page.locator('#task-state').textContent()).toBe('Task state: completed');
  // The streamed answer reached the playground, chunk after chunk, joined into one turn (the other
  // agent turns are the run's status updates, each with its step record as a data part).
  const chunks = ((await page.locator('#raw-events').textContent()) ?? '').split('\n').filter((line) => line.includes('"artifactUpdate"'));
  expect(chunks.length).toBeGreaterThan(1);
  const answerTurns = page.locator('.playground .transcript li.agent').filter({ hasNot: page.locator('pre.part-data') });
  expect(await answerTurns.count()).toBe(1);
  expect(await answerTurns.locator('pre.part-text').allTextContents()).toEqual([ANSWER]);

  // Every step arrived on the task page live, each in its own status update, without a reload.
  await expect.poll(() => taskPage.locator('#task-page-state').textContent()).toBe('completed');
  await expect.poll(() => steps.locator('h3').allTextContents()).toEqual(['Model call 1: gpt-scripted', 'Tool call echo__echo: echo (echo)', 'Result of echo__echo: completed', 'Model call 2: gpt-scripted']);
  expect(await taskPage.locator('#run-summary').textContent()).toBe('2 model calls, 1 tool calls, 3,016 tokens');
  const first = steps.nth(0);
  expect(await first.locator('.run-facts').textContent()).toMatch(/^1,200 prompt tokens \(640 cached\), 9 completion tokens · [\d,]+ ms · tool_calls$/);
  expect(await first.textContent()).toContain('Asked for: echo__echo');
  expect(JSON.parse((await steps.nth(1).locator('pre.run-arguments').textContent()) ?? '')).toEqual({ request: 'traced' });
  expect(await steps.nth(2).locator('pre').textContent()).toBe('traced');
  const last = steps.nth(3);
  expect(await last.locator('.run-facts').textContent()).toMatch(/^1,800 prompt tokens, 7 completion tokens · [\d,]+ ms · stop$/);
  expect(await last.locator('pre').textContent()).toBe(ANSWER);
  expect(await seriousViolations(taskPage)).toEqual([]);
  await screenshot(taskPage, 'console-llm-run.png', { fullPage: true });

  // The tool call's link opens the sub-task: the echo agent's, the member's own.
  const link = steps.nth(1).getByRole('link', { name: /^Sub-task / });
  const subId = ((await link.textContent()) ?? '').replace('Sub-task ', '');
  expect(await steps.nth(2).getByRole('link').getAttribute('href')).toBe(`#/tasks/echo/${subId}`);
  await link.click();
  await taskPage.waitForURL(new RegExp(`#/tasks/echo/${subId}$`));
  await expect.poll(() => taskPage.locator('#task-page-state').textContent()).toBe('completed');
  expect(await taskPage.locator('dl.facts dd').nth(1).textContent()).toBe('echo');
  // A task of an agent that is not an LLM agent has no run timeline.
  expect(await taskPage.locator('.run-timeline').count()).toBe(0);

  expect(problems).toEqual([]);
  expect(taskProblems).toEqual([]);
  await taskPage.close();
  await page.close();
}, 90_000);

#!/usr/bin/env node
/**
 * Saves docs/images/landing.png (the page at /) and docs/images/oauth-error.png (/oauth/authorize
 * without client_id) from a real server with the demo agents, in Debian's Chromium.
 * Run after `npm run build`: node scripts/screenshots.mjs
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { parseConfig } = await import(path.join(root, 'dist/config/index.js'));
const { startServer } = await import(path.join(root, 'dist/server/start.js'));

const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-screenshots-'));
const config = parseConfig({ server: { host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, grpc: { port: 0 } } }, { env: {}, cwd: dataDir });
const server = await startServer(config);
const browser = await launchChromium();
try {
  const out = path.join(root, 'docs/images');
  await mkdir(out, { recursive: true });
  const page = await browser.context.newPage();
  await page.goto(`${server.urls.http}/`);
  await page.screenshot({ path: path.join(out, 'landing.png'), fullPage: true });
  await page.setViewportSize({ width: 800, height: 520 });
  await page.goto(`${server.urls.http}/oauth/authorize?response_type=code`);
  await page.screenshot({ path: path.join(out, 'oauth-error.png') });
  process.stdout.write(`saved ${path.relative(root, out)}/landing.png and oauth-error.png\n`);
} finally {
  await browser.close();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
}

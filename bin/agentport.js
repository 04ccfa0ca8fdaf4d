#!/usr/bin/env node
// The `agentport` command. The CLI is TypeScript, compiled into dist/ by `npm run build`
// (which `npm install` runs through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);

if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    `agentport: the compiled CLI is missing (${fileURLToPath(main)}).\n` +
      'Run npm install (it builds), or npm run build in the agentport folder.\n',
  );
  process.exit(1);
}

await import(main.href);

#!/usr/bin/env -S node --max-semi-space-size=64
// The `agentport` command. The CLI is TypeScript, compiled into dist/ by `npm run build`
// (which `npm install` runs through the prepare script).
// The shebang's node option is the young generation the server ships with (ADR 0081): V8 fixes it
// before any code runs, so it must be on node's command line. `node bin/agentport.js` runs without
// it (V8's default); package.json's scripts, deploy/entrypoint.sh and the systemd unit pass it too.
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

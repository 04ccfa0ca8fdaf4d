// The check every bench that runs a built checkout makes first: its compiled CLI must be there.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Exits with status 2 and says how to build when `tree` has no compiled server (dist/cli/main.js). */
export function requireBuiltTree(tree) {
  if (existsSync(path.join(tree, 'dist', 'cli', 'main.js'))) return;
  console.error(`${tree}/dist is missing: build it first (npm run build in ${tree})`);
  process.exit(2);
}

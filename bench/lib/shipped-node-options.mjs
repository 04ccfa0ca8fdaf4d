// The node options Agentport ships its server with: those its command's shebang names
// (bin/agentport.js, `#!/usr/bin/env -S node <options>`; ADR 0081). The package's start script,
// the image's entrypoint and the systemd unit pass the same ones (test/deploy/young-generation.test.ts),
// so a bench that puts them before the entry point starts the product the way it ships. A tree
// whose shebang names none (a build from before ADR 0081) gets none: an A/B against it compares
// the two as shipped. The peers (a2a-js, the MCP SDK, bare node:http) always run with Node's defaults.
import { readFileSync } from 'node:fs';

/** The options of `entry`'s `#!/usr/bin/env -S node …` line; [] for a plain `#!/usr/bin/env node`. */
export function shippedNodeOptions(entry) {
  const first = readFileSync(entry, 'utf8').split('\n', 1)[0];
  const match = /^#!\/usr\/bin\/env\s+-S\s+node\s+(.+)$/.exec(first.trim());
  return match ? match[1].split(/\s+/).filter(Boolean) : [];
}

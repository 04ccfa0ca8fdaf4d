import { SHIPPED_YOUNG_GENERATION } from '../../src/server/heap-settings.js';

/**
 * The node options before `bin/agentport.js` when a test starts the built CLI as a child: the
 * young generation every shipped launch line gives it (the command's shebang, package.json's
 * scripts, the image's entrypoint, the systemd unit: ADR 0081), so the child runs as deployed.
 * With V8's default semi-spaces instead, a `serve` start scavenged through its module loading: about
 * 0.8 s more CPU a start on the loaded 2-core machine (4.3–5.5 s against 3.4–4.7 s user), paid by
 * every replica, restart and CLI child of the `system` project (docs/benchmarks.md, "suites37").
 * test/deploy/young-generation.test.ts starts its children itself, with and without it.
 */
export const CLI_NODE_ARGS: readonly string[] = [SHIPPED_YOUNG_GENERATION];

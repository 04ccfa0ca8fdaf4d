/** Entry point of the `agentport` command (bin/agentport.js imports the built copy of this file). */
import { processIO } from './io.js';
import { runCli } from './program.js';

let settled = false;
// The event loop emptied while the command still waited: nothing can settle it any more, and Node
// would end the process with status 13 and nothing printed. Say so, and exit 1 instead.
process.once('beforeExit', () => {
  if (settled) return;
  process.stderr.write('agentport: internal error: the command stopped waiting on a step that can never finish (nothing was left running to complete it). Please report this with the command line.\n');
  process.exit(1);
});

await runCli(process.argv, processIO());
settled = true;

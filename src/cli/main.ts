/** Entry point of the `agentport` command (bin/agentport.js imports the built copy of this file). */
import { processIO } from './io.js';
import { runCli } from './program.js';
import { exitIfNeverSettled } from './unsettled-exit.js';

await exitIfNeverSettled(runCli(process.argv, processIO()));

/**
 * A command whose promise can never settle (nothing left on the event loop to settle it) would
 * end with Node's status 13 and nothing printed. This turns that into a message and exit 1.
 */
export function exitIfNeverSettled(command: Promise<unknown>, proc: Pick<NodeJS.Process, 'once' | 'exit' | 'stderr'> = process): Promise<unknown> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  command.then(done, done);
  // 'beforeExit' fires when the event loop is empty: past that point nothing can settle `command`.
  proc.once('beforeExit', () => {
    if (settled) return;
    proc.stderr.write('agentport: internal error: the command stopped waiting on a step that can never finish (nothing was left running to complete it). Please report this with the command line.\n');
    proc.exit(1);
  });
  return command;
}

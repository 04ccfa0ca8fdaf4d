/**
 * Graceful stop on SIGINT/SIGTERM: the first signal drains and closes the server; a second one
 * exits at once, for when a drain hangs (a stuck executor, a client that never reads).
 */
import type { CliIO, ShutdownSignal } from './io.js';

const FORCED_EXIT_CODE: Record<ShutdownSignal, number> = { SIGINT: 130, SIGTERM: 143 };

export function stopOnSignals(server: { close(): Promise<void> }, io: CliIO): void {
  let stopping = false;
  const onSignal = (signal: ShutdownSignal) => {
    if (stopping) {
      io.stderr(`${signal} again: exiting without waiting.\n`);
      io.exit(FORCED_EXIT_CODE[signal]);
      return;
    }
    stopping = true;
    const again = signal === 'SIGINT' ? 'press Ctrl+C again' : `send ${signal} again`;
    io.stderr(`\n${signal}: finishing open requests and stopping (${again} to exit at once)...\n`);
    server.close().then(
      () => {
        io.stderr('Stopped.\n');
        io.exit(0);
      },
      (error: unknown) => {
        io.stderr(`Error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
        io.exit(1);
      },
    );
  };
  io.onSignal('SIGINT', () => onSignal('SIGINT'));
  io.onSignal('SIGTERM', () => onSignal('SIGTERM'));
}

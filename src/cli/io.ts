/**
 * What the CLI touches of the outside world, in one seam, so commands run in-process under test
 * exactly as they do from a terminal.
 */
export type ShutdownSignal = 'SIGINT' | 'SIGTERM';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** ends the process (in tests: records the code); callers return right after */
  exit(code: number): void;
  env: NodeJS.ProcessEnv;
  cwd(): string;
  onSignal(signal: ShutdownSignal, handler: () => void): void;
  /** stdout is a terminal: commands may redraw lines (the live task view); absent means no */
  isTTY?: boolean;
}

export function processIO(): CliIO {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    exit: (code) => process.exit(code),
    env: process.env,
    cwd: () => process.cwd(),
    onSignal: (signal, handler) => void process.on(signal, handler),
    isTTY: process.stdout.isTTY === true,
  };
}

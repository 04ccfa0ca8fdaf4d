import type { CliIO, ShutdownSignal } from '../../src/cli/io.js';

export interface FakeIO extends CliIO {
  out: string;
  err: string;
  exits: number[];
  signal(signal: ShutdownSignal): void;
}

export function fakeIO(cwd: string, env: NodeJS.ProcessEnv = {}): FakeIO {
  const handlers: Array<{ signal: ShutdownSignal; handler: () => void }> = [];
  const io: FakeIO = {
    out: '',
    err: '',
    exits: [],
    stdout: (text) => void (io.out += text),
    stderr: (text) => void (io.err += text),
    exit: (code) => void io.exits.push(code),
    env,
    cwd: () => cwd,
    onSignal: (signal, handler) => void handlers.push({ signal, handler }),
    signal: (signal) => handlers.filter((h) => h.signal === signal).forEach((h) => h.handler()),
  };
  return io;
}

/** A log destination that keeps every line, parsed, for tests that read what a server logged. */
export interface CapturedLog {
  write(line: string): void;
  /** the raw lines, as written */
  lines: string[];
  /** the lines parsed */
  records(): Array<Record<string, unknown>>;
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  return {
    write: (line) => void lines.push(line),
    lines,
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

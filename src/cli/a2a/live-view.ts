/**
 * What a person sees while a task runs. On a terminal: artifact text streams in as it arrives,
 * under it one status line (spinner, state, elapsed time, task id) redrawn in place. Anywhere
 * else (a pipe, a log file, CI): plain lines, one per state change, prefixed with the elapsed time,
 * so nothing depends on cursor control. With --json each event is one JSON line instead.
 */
import type { StreamResponse, TaskState } from '../../protocol/a2a/types.js';
import type { CliIO } from '../io.js';
import { partsText, stateName } from './render.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

export interface LiveViewOptions {
  mode: 'tty' | 'plain' | 'json';
  now?: () => number;
}

export class LiveView {
  state: TaskState | undefined;
  taskId: string | undefined;
  contextId: string | undefined;
  /** a direct Message reply ended the exchange */
  replied = false;
  private readonly started: number;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  /** the last artifact output ended without a newline (a chunk of a streamed artifact) */
  private midLine = false;

  constructor(
    private readonly io: CliIO,
    private readonly opts: LiveViewOptions,
  ) {
    this.started = (opts.now ?? Date.now)();
    if (opts.mode === 'tty') this.timer = setInterval(() => this.drawStatus(), 100);
  }

  private elapsed(): string {
    return `${(((this.opts.now ?? Date.now)() - this.started) / 1000).toFixed(1)}s`;
  }

  private drawStatus(): void {
    if (this.opts.mode !== 'tty') return;
    const spin = SPINNER[this.frame++ % SPINNER.length];
    const id = this.taskId ? `  task ${this.taskId}` : '';
    this.io.stdout(`${CLEAR_LINE}${this.midLine ? '\n' : ''}\x1b[2m${spin} ${this.state ? stateName(this.state) : 'sending'}  ${this.elapsed()}${id}\x1b[0m`);
    if (this.midLine) this.midLine = false;
  }

  /** Writes above the status line. */
  private print(text: string, endLine: boolean): void {
    if (this.opts.mode === 'tty') this.io.stdout(CLEAR_LINE);
    this.io.stdout(text + (endLine ? '\n' : ''));
    this.midLine = !endLine && !text.endsWith('\n');
    if (this.opts.mode === 'tty' && endLine) this.drawStatus();
  }

  private line(text: string): void {
    if (this.midLine) this.print('', true);
    this.print(this.opts.mode === 'plain' ? `[${this.elapsed()}] ${text}` : text, true);
  }

  event(r: StreamResponse, id?: string): void {
    if (this.opts.mode === 'json') {
      this.io.stdout(JSON.stringify(id === undefined ? r : { id, ...r }) + '\n');
      this.track(r);
      return;
    }
    if ('message' in r) {
      this.replied = true;
      this.line(`reply: ${partsText(r.message.parts)}`);
      return;
    }
    if ('artifactUpdate' in r) {
      this.taskId ??= r.artifactUpdate.taskId;
      const text = partsText(r.artifactUpdate.artifact.parts);
      // Chunks of one artifact (append, not last) continue the same line; a finished artifact ends it.
      const chunked = r.artifactUpdate.append === true || r.artifactUpdate.lastChunk === false;
      this.print(text, !chunked || r.artifactUpdate.lastChunk === true);
      return;
    }
    const before = this.state;
    this.track(r);
    const status = 'task' in r ? r.task.status : r.statusUpdate.status;
    if ('task' in r && before === undefined) this.line(`task ${r.task.id} (context ${r.task.contextId})`);
    if ('task' in r && before !== undefined && (r.task.artifacts?.length ?? 0) > 0) {
      // A snapshot after a resume without event ids: its artifacts are the state of record.
      this.line(`snapshot: ${r.task.artifacts!.length} artifact(s)`);
    }
    if (status.state !== before || status.message) {
      const msg = status.message ? `: ${partsText(status.message.parts)}` : '';
      this.line(`${stateName(status.state)}${msg}`);
    }
  }

  private track(r: StreamResponse): void {
    if ('task' in r) {
      this.taskId = r.task.id;
      this.contextId = r.task.contextId;
      this.state = r.task.status.state;
    } else if ('statusUpdate' in r) {
      this.taskId ??= r.statusUpdate.taskId;
      this.contextId ??= r.statusUpdate.contextId;
      this.state = r.statusUpdate.status.state;
    } else if ('message' in r) {
      this.replied = true;
    }
  }

  /** A dropped connection being resumed: said on stderr so stdout stays the agent's output. */
  resuming(attempt: number, lastEventId: string | undefined): void {
    if (this.opts.mode === 'tty') this.io.stdout(CLEAR_LINE);
    this.io.stderr(`connection lost; resuming${lastEventId ? ` after event ${lastEventId}` : ''} (attempt ${attempt})\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.opts.mode === 'tty') this.io.stdout(CLEAR_LINE);
    if (this.midLine && this.opts.mode !== 'json') this.io.stdout('\n');
    this.midLine = false;
  }

  /** the elapsed time, for a closing line */
  get elapsedText(): string {
    return this.elapsed();
  }
}

/**
 * What a person sees while a task runs. On a terminal: artifact text streams in as it arrives,
 * under it one status line (spinner, state, elapsed time, task id) redrawn in place. Anywhere
 * else (a pipe, a log file, CI): plain lines, one per state change, prefixed with the elapsed time,
 * so nothing depends on cursor control. With --json each event is one JSON line instead.
 */
import { isTerminal, type Part, type StreamResponse, type TaskState } from '../../protocol/a2a/types.js';
import type { CliIO } from '../io.js';
import { partsText, stateName } from './render.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

export interface LiveViewOptions {
  mode: 'tty' | 'plain' | 'json';
  now?: () => number;
  /**
   * How a whole artifact (sent in one event) and a reply are shown (terminal-parts.ts); default
   * the parts as sent. Chunks of a streamed artifact are printed as they come, never re-rendered.
   */
  render?: (parts: Part[]) => string;
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
  /** the artifact whose chunks the open line shows */
  private openArtifact: string | undefined;

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

  /**
   * The status line sits under the output. While an artifact streams into an open line the status
   * line is not drawn (redrawing it would need cursor moves that break on wrapped lines); it comes
   * back when the line ends.
   */
  private drawStatus(): void {
    if (this.opts.mode !== 'tty' || this.midLine) return;
    const spin = SPINNER[this.frame++ % SPINNER.length];
    const id = this.taskId ? `  task ${this.taskId}` : '';
    this.io.stdout(`${CLEAR_LINE}\x1b[2m${spin} ${this.state ? stateName(this.state) : 'sending'}  ${this.elapsed()}${id}\x1b[0m`);
  }

  /** Writes above the status line (or continues the open line). */
  private print(text: string, endLine: boolean): void {
    if (this.opts.mode === 'tty' && !this.midLine) this.io.stdout(CLEAR_LINE);
    this.io.stdout(text + (endLine ? '\n' : ''));
    this.midLine = !endLine && !text.endsWith('\n');
    if (endLine) this.drawStatus();
  }

  private line(text: string): void {
    if (this.midLine) this.print('', true);
    this.print(this.opts.mode === 'plain' ? `[${this.elapsed()}] ${text}` : text, true);
  }

  event(r: StreamResponse, id?: string): void {
    if (this.opts.mode === 'json') {
      this.io.stdout(`${JSON.stringify(id === undefined ? r : { id, ...r })}\n`);
      this.track(r);
      return;
    }
    if ('message' in r) {
      this.replied = true;
      this.line(`reply: ${(this.opts.render ?? partsText)(r.message.parts)}`);
      return;
    }
    if ('artifactUpdate' in r) {
      const u = r.artifactUpdate;
      this.taskId ??= u.taskId;
      // A chunk continues the open line only if it appends to the artifact that line shows.
      const continues = u.append === true && this.midLine && this.openArtifact === u.artifact.artifactId;
      if (this.midLine && !continues) this.print('', true);
      // Open until its last chunk: an artifact sent in pieces says lastChunk:false until the end.
      const ends = u.lastChunk === true || (u.append !== true && u.lastChunk !== false);
      this.openArtifact = ends ? undefined : u.artifact.artifactId;
      const whole = ends && u.append !== true;
      this.print((whole && this.opts.render ? this.opts.render : partsText)(u.artifact.parts), ends);
      return;
    }
    const before = this.state;
    this.track(r);
    const status = 'task' in r ? r.task.status : r.statusUpdate.status;
    const first = 'task' in r && before === undefined;
    if (first) this.line(`task ${r.task.id} (context ${r.task.contextId})`);
    if ('task' in r && !first && (r.task.artifacts?.length ?? 0) > 0) {
      // A snapshot after a resume without event ids: its artifacts are the state of record.
      this.line(`snapshot: ${r.task.artifacts!.length} artifact(s)`);
    }
    if (status.state !== before || status.message) {
      const msg = status.message ? `: ${partsText(status.message.parts)}` : '';
      this.line(`${stateName(status.state)}${msg}`);
    }
    if (first) {
      // Subscribing to a running task: its snapshot holds what was produced so far.
      const artifacts = r.task.artifacts ?? [];
      artifacts.forEach((a, i) => {
        const open = i === artifacts.length - 1 && !isTerminal(r.task.status.state);
        this.openArtifact = open ? a.artifactId : undefined;
        this.print(partsText(a.parts), !open);
      });
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
    // End an open artifact line first, so the notice does not land in the middle of the agent's text.
    if (this.midLine) {
      this.io.stdout('\n');
      this.midLine = false;
    } else if (this.opts.mode === 'tty') this.io.stdout(CLEAR_LINE);
    this.io.stderr(`connection lost; resuming${lastEventId ? ` after event ${lastEventId}` : ''} (attempt ${attempt})\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.midLine) this.io.stdout('\n');
    else if (this.opts.mode === 'tty') this.io.stdout(CLEAR_LINE);
    this.midLine = false;
  }

  /** the elapsed time, for a closing line */
  get elapsedText(): string {
    return this.elapsed();
  }
}

/**
 * `agentport send <url> "text"`: one message to an agent, as a new task or into an existing one.
 * Without --stream it waits for the task to finish (or need input) and prints the result; with
 * --stream it shows the task live. Exit codes: docs/cli.md.
 */
import type { Command } from 'commander';
import { textMessage, type SendMessageRequest } from '../../client/index.js';
import { clientEventRelay, followStream, viewMode } from '../a2a/follow.js';
import { clientOptions, CONNECTION_HELP, checkUrl, UsageError, withConnectionOptions, type ConnectionFlags } from '../a2a/connection.js';
import { describeError, EXIT, exitCodeForState } from '../a2a/exit-codes.js';
import { LiveView } from '../a2a/live-view.js';
import { dataPart, fileParts } from '../a2a/message-parts.js';
import { taskSummary } from '../a2a/render.js';
import { partsRendererFor } from '../a2a/terminal-parts.js';
import { A2AClient } from '../../client/index.js';
import type { CliIO } from '../io.js';

interface SendFlags extends ConnectionFlags {
  stream?: boolean;
  file: string[];
  data?: string;
  context?: string;
  task?: string;
  wait: boolean;
  raw?: boolean;
}

const SEND_HELP = `
Examples:
  $ agentport send http://127.0.0.1:8080/a2a/echo "hello"
  $ agentport send http://127.0.0.1:8080/a2a/echo "summarise this" --file report.pdf --stream
  $ agentport send $AGENT "sum these" --data '{"rows":[1,2,3]}' --json | jq .task.status.state
  $ agentport send $AGENT "yes, Paris" --task 0192f1c3-…          answer a task that asked for input
  $ agentport send $AGENT "and in 2024?" --context 0192f1c3-…     a new task in the same conversation

The URL is the agent's (its card is read from <url>/.well-known/agent-card.json) or a card URL.
Exit codes: 0 completed, 1 failed/rejected, 2 usage, 3 input or auth required, 4 unreachable,
5 agent error, 6 not authenticated/allowed, 7 canceled, 130 interrupted (docs/cli.md).
${CONNECTION_HELP}
`;

export function registerSend(program: Command, io: CliIO): void {
  withConnectionOptions(
    program.command('send').description('send a message to an agent and show the task it starts (live with --stream)').argument('<url>', "the agent's URL or its card URL").argument('[text]', 'the message text'),
  )
    .option('-s, --stream', 'show the task live as it runs (SendStreamingMessage)')
    .option('-f, --file <path>', 'attach a file (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('-d, --data <json>', 'attach JSON data')
    .option('-c, --context <contextId>', 'continue a conversation (new task in that context)')
    .option('-t, --task <taskId>', 'send into an existing task (e.g. one waiting for input)')
    .option('--no-wait', 'return as soon as the task exists instead of waiting for it to finish')
    .option('--raw', 'print the parts as sent (no markdown rendering, tables or chart summaries)')
    .addHelpText('after', SEND_HELP)
    .action(async (url: string, text: string | undefined, f: SendFlags) => {
      const code = await send(io, url, text, f);
      if (code !== 0) io.exit(code);
    });
}

async function send(io: CliIO, url: string, text: string | undefined, f: SendFlags): Promise<number> {
  let request: SendMessageRequest;
  let client: A2AClient;
  const relay = clientEventRelay();
  try {
    checkUrl(url);
    const parts = [...(await fileParts(f.file, io.cwd())), ...(f.data === undefined ? [] : [dataPart(f.data)])];
    if (!text && parts.length === 0) throw new UsageError('nothing to send: give a text, --file or --data');
    request = {
      message: textMessage(text, { parts, ...(f.context ? { contextId: f.context } : {}), ...(f.task ? { taskId: f.task } : {}) }),
      ...(f.wait === false ? { configuration: { returnImmediately: true } } : {}),
    };
    client = await A2AClient.connect(url, { ...clientOptions(f, io), onEvent: relay.onEvent });
  } catch (err) {
    return failed(io, err);
  }
  if (f.stream) {
    if (client.card.capabilities.streaming !== true) io.stderr('note: the card does not declare streaming; trying anyway\n');
    const view = new LiveView(io, { mode: viewMode(io, f.json), render: partsRendererFor(io, f.raw) });
    relay.target.view = view;
    return followStream(io, client, (signal) => client.sendStreamingMessage(request, { signal }), { url, ...(f.json ? { json: true } : {}) }, view);
  }
  const waiting = io.isTTY && !f.json ? new LiveView(io, { mode: 'tty' }) : undefined;
  try {
    const r = await client.sendMessage(request);
    waiting?.stop();
    if (f.json) io.stdout(`${JSON.stringify(r)}\n`);
    if ('message' in r) {
      if (!f.json) io.stdout(`${partsRendererFor(io, f.raw)(r.message.parts)}\n`);
      return EXIT.ok;
    }
    if (!f.json) io.stdout(taskSummary(r.task, partsRendererFor(io, f.raw, `agentport tasks get ${url} ${r.task.id} --raw`)));
    if (r.task.status.state === 'TASK_STATE_INPUT_REQUIRED') io.stderr(`the agent needs input; answer with: agentport send ${url} "<reply>" --task ${r.task.id}\n`);
    return f.wait === false ? EXIT.ok : exitCodeForState(r.task.status.state);
  } catch (err) {
    waiting?.stop();
    return failed(io, err);
  } finally {
    client.close();
  }
}

/** Reports an error; a usage error points at the help of the command that was run (`tasks list`). */
export function failed(io: CliIO, err: unknown, command = 'send'): number {
  if (err instanceof UsageError) {
    io.stderr(`agentport: ${err.message}\n(run agentport ${command} --help for usage)\n`);
    return EXIT.usage;
  }
  const { code, message } = describeError(err);
  io.stderr(`agentport: ${message}\n`);
  return code;
}

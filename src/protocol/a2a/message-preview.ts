/**
 * A task's first user message as one short line, so that a list of tasks says what each was
 * about instead of showing only UUIDs (the console's Tasks page, `agentport tasks list`).
 */
import type { Part, Task } from './types.js';

/** Long enough to recognise a request, short enough for one table cell. */
export const PREVIEW_CHARS = 80;

function partPreview(p: Part): string | undefined {
  if (p.text !== undefined) return p.text;
  if (p.data !== undefined) return JSON.stringify(p.data);
  if (p.filename !== undefined) return `[file ${p.filename}]`;
  if (p.raw !== undefined || p.url !== undefined) return '[file]';
  return undefined;
}

/**
 * The text of the first `ROLE_USER` message in the task's history (data as compact JSON, a file by
 * its name), whitespace folded, cut at `max` characters with an ellipsis; undefined when the
 * history holds no user message (a history trimmed to none, or `historyLength: 0`).
 */
export function firstMessagePreview(task: Pick<Task, 'history'>, max = PREVIEW_CHARS): string | undefined {
  const first = task.history?.find((m) => m.role === 'ROLE_USER');
  if (!first) return undefined;
  const line = first.parts
    .map(partPreview)
    .filter((s): s is string => s !== undefined)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (line === '') return undefined;
  const chars = [...line];
  return chars.length > max
    ? `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
    : line;
}

/**
 * The JSON text a value was last written as, kept by the value's identity (a WeakMap: the text
 * lives exactly as long as the value), so an answer made of that value is not serialised again.
 *
 * Issue 26: a blocking SendMessage answers with the task its last commit stored, and the store
 * had just serialised that very copy into the task row (~450 B, ~24 k instructions a request,
 * 4 % of the main thread). The store writes the row with `writeJson`; the A2A faces encode a
 * result with `resultJson`, which takes the remembered text for the task instead of a second
 * `JSON.stringify` (docs/decisions/0049-written-json-once.md).
 *
 * Sound only for values nobody changes after they are written: a task's committed copy
 * (core/task-state/task-log.ts makes a fresh one per commit and never changes it). `writeJson`
 * always serialises (a value written twice is written as it is now); only `resultJson` reuses.
 */
const texts = new WeakMap<object, string>();

/** `JSON.stringify(value)`, remembered for `value` (which must not change from now on). */
export function writeJson(value: object): string {
  const text = JSON.stringify(value);
  texts.set(value, text);
  return text;
}

/** Whether `value` was written (and so, by writeJson's contract, does not change any more). */
export function hasWrittenJson(value: object): boolean {
  return texts.has(value);
}

/**
 * An A2A result's JSON text: a written value's remembered text, `{"task":…}` around a written task
 * (SendMessageResponse), else `JSON.stringify`. `undefined` is not JSON: callers write their own.
 */
export function resultJson(result: object): string {
  const own = texts.get(result);
  if (own !== undefined) return own;
  const task = (result as { task?: unknown }).task;
  if (typeof task === 'object' && task !== null) {
    const text = texts.get(task);
    if (text !== undefined && hasOnlyTask(result)) return `{"task":${text}}`;
  }
  return JSON.stringify(result);
}

function hasOnlyTask(o: object): boolean {
  for (const key in o) if (key !== 'task') return false;
  return true;
}

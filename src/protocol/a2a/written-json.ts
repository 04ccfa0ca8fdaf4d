/**
 * The JSON text a value was last written as, kept on the value itself (a private field: the text
 * lives exactly as long as the value), so an answer made of that value is not serialised again.
 *
 * Issue 26: a blocking SendMessage answers with the task its last commit stored, and the store
 * had just serialised that very copy into the task row (~450 B, ~24 k instructions a request,
 * 4 % of the main thread). The store writes the row with `writeJson`; the A2A faces encode a
 * result with `resultJson`, which takes the remembered text for the task instead of a second
 * `JSON.stringify` (docs/decisions/0049-written-json-once.md).
 *
 * Not a WeakMap (ADR 0064): a scavenge treats the values of an old WeakMap's entries whose keys
 * are young as live, so every request's text (~0.45 KB) was copied by the next scavenge after its
 * task had died. A field is reached only through its value. Private (not a property: a
 * class's private field, installed by a constructor that returns the value), so spreads,
 * `Object.assign`, `structuredClone`, `JSON.stringify` and `Reflect.ownKeys` never see it or carry
 * it to another value; a frozen or sealed value is not given one (it is serialised again when
 * answered).
 *
 * Sound only for values nobody changes after they are written: a task's committed copy
 * (core/task-state/task-log.ts commits a fresh copy, or the working copy itself when a copy would
 * read the same, and then changes a copy of it, never it: LiveTask.sharedTask), and only for
 * plain objects (a value whose prototype is a written value would read the prototype's text).
 * `writeJson` always serialises (a value written twice is written as it is now); only
 * `resultJson` reuses.
 */
/** Gives any object it is called on a private field (a class's constructor may return another object). */
class OnAnyObject {
  constructor(o: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the private field below is installed on `o`
    return o;
  }
}

/** The text field; an object gets it when first written. */
class WrittenText extends OnAnyObject {
  #text: string;

  private constructor(o: object, text: string) {
    super(o);
    this.#text = text;
  }

  static set(o: object, text: string): void {
    if (#text in o) (o as WrittenText).#text = text;
    else new WrittenText(o, text);
  }

  static of(o: object): string | undefined {
    return #text in o ? (o as WrittenText).#text : undefined;
  }
}

/** `JSON.stringify(value)`, remembered for `value` (which must not change from now on). */
export function writeJson(value: object): string {
  const text = JSON.stringify(value);
  if (Object.isExtensible(value)) WrittenText.set(value, text);
  return text;
}

/** Whether `value` was written (and so, by writeJson's contract, does not change any more). */
export function hasWrittenJson(value: object): boolean {
  return WrittenText.of(value) !== undefined;
}

/**
 * An A2A result's JSON text: a written value's remembered text, `{"task":…}` around a written task
 * (SendMessageResponse), else `JSON.stringify`. `undefined` is not JSON: callers write their own.
 */
export function resultJson(result: object): string {
  const own = WrittenText.of(result);
  if (own !== undefined) return own;
  const task = taskTextOf(result);
  return task === undefined ? JSON.stringify(result) : `{"task":${task}}`;
}

/**
 * The written task's text of a result `resultJson` answers as `{"task":…}` around it, else
 * undefined: a caller that counts the answer's bytes counts them on this flat text instead of on
 * the joined one (counting a joined string copies it whole first: ~0.5 KB a blocking send).
 */
export function writtenTaskText(result: object): string | undefined {
  return WrittenText.of(result) === undefined ? taskTextOf(result) : undefined;
}

function taskTextOf(result: object): string | undefined {
  const task = (result as { task?: unknown }).task;
  if (typeof task !== 'object' || task === null) return undefined;
  const text = WrittenText.of(task);
  return text !== undefined && hasOnlyTask(result) ? text : undefined;
}

function hasOnlyTask(o: object): boolean {
  for (const key in o) if (key !== 'task') return false;
  return true;
}

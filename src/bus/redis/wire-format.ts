/**
 * The frames on the bus's two pub/sub channels:
 *
 *   <origin replica>\n<key>\n<JSON body>
 *
 * `key` is the task id on the events channel and the addressed replica ('' for all) on the control
 * channel. Every replica receives every message, so the header lets it drop one (its own echo, a
 * task nobody here follows, a signal meant for another replica) without parsing the body. Header
 * fields are JSON strings, which cannot hold a raw newline, so no id can break the framing.
 */
import type { ForwardedMessage, TaskControl } from '../event-bus.js';
import type { TaskEventRecord } from '../../store/task-event-record.js';

export interface FrameHeader {
  origin: string;
  key: string;
  /** offset of the JSON body in the frame */
  bodyAt: number;
}

export function encodeFrame(origin: string, key: string, body: unknown): string {
  return `${JSON.stringify(origin)}\n${JSON.stringify(key)}\n${JSON.stringify(body)}`;
}

/** The header alone; undefined for a frame that is not ours (or is damaged). */
export function readFrameHeader(frame: string): FrameHeader | undefined {
  const a = frame.indexOf('\n');
  const b = a < 0 ? -1 : frame.indexOf('\n', a + 1);
  if (b < 0) return undefined;
  try {
    const origin: unknown = JSON.parse(frame.slice(0, a));
    const key: unknown = JSON.parse(frame.slice(a + 1, b));
    if (typeof origin !== 'string' || typeof key !== 'string') return undefined;
    return { origin, key, bodyAt: b + 1 };
  } catch {
    return undefined;
  }
}

function parseBody(frame: string, header: FrameHeader): unknown {
  try {
    return JSON.parse(frame.slice(header.bodyAt));
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The records of an events frame, checked as far as the bus relies on them (task, seq, order key);
 * the events themselves were validated before they were committed. Undefined when malformed.
 */
export function parseEventRecords(frame: string, header: FrameHeader): TaskEventRecord[] | undefined {
  const body = parseBody(frame, header);
  if (!Array.isArray(body)) return undefined;
  for (const r of body) {
    if (!isObject(r) || r.taskId !== header.key || !Number.isSafeInteger(r.seq) || (r.seq as number) < 1) return undefined;
    if (!isObject(r.event) || typeof r.createdAt !== 'number') return undefined;
  }
  return body as TaskEventRecord[];
}

/**
 * The publish time rides on the first record of an events frame (`publishedAt`, epoch ms) when the
 * publisher has metrics on: a field that replicas without it ignore, so frames stay readable both
 * ways during a rolling upgrade. The receiver takes it off before the records reach subscribers.
 */
export function stampPublished(records: TaskEventRecord[], now: number): TaskEventRecord[] {
  return [{ ...records[0]!, publishedAt: now } as TaskEventRecord, ...records.slice(1)];
}

export function takePublished(records: TaskEventRecord[]): { records: TaskEventRecord[]; publishedAt?: number } {
  if (records.length === 0 || !('publishedAt' in records[0]!)) return { records };
  const { publishedAt, ...first } = records[0] as TaskEventRecord & { publishedAt?: unknown };
  const rest = [first as TaskEventRecord, ...records.slice(1)];
  return typeof publishedAt === 'number' ? { records: rest, publishedAt } : { records: rest };
}

/**
 * Signals that carry nothing but the task. A type this build does not know (a newer replica during
 * a rolling upgrade) is dropped rather than handed to a core that cannot act on it.
 */
const TASK_ONLY_SIGNALS: ReadonlySet<string> = new Set(['cancel', 'push-configs']);

/** The signal of a control frame, with `from` taken from the frame's origin. Undefined when malformed. */
export function parseControl(frame: string, header: FrameHeader): TaskControl | undefined {
  const body = parseBody(frame, header);
  if (!isObject(body) || typeof body.taskId !== 'string') return undefined;
  const to = typeof body.to === 'string' ? body.to : undefined;
  const routing = { ...(to ? { to } : {}), from: header.origin };
  if (typeof body.type === 'string' && TASK_ONLY_SIGNALS.has(body.type)) {
    return { type: body.type, taskId: body.taskId, ...routing } as TaskControl;
  }
  if (body.type === 'message' && isForwardedMessage(body.forwarded)) {
    return { type: 'message', taskId: body.taskId, forwarded: body.forwarded, ...routing };
  }
  return undefined;
}

function isForwardedMessage(v: unknown): v is ForwardedMessage {
  return (
    isObject(v) &&
    typeof v.agentId === 'string' &&
    typeof v.owner === 'string' &&
    isObject(v.message) &&
    Array.isArray(v.extensions) &&
    v.extensions.every((e) => typeof e === 'string') &&
    (v.usecases === undefined || (Array.isArray(v.usecases) && v.usecases.every((u) => typeof u === 'string')))
  );
}

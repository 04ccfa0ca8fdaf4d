/** Opaque ListTasks cursors: base64url of the keyset position. Anything else is InvalidParams. */
import { invalidParams } from '../../protocol/a2a/errors.js';

export interface Cursor {
  statusTime: number;
  taskId: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.statusTime, c.taskId])).toString('base64url');
}

export function decodeCursor(token: string, field = 'pageToken'): Cursor {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string') {
      return { statusTime: v[0] as number, taskId: v[1] as string };
    }
  } catch {
    // fall through
  }
  throw invalidParams(field, 'not a page token returned by this server');
}

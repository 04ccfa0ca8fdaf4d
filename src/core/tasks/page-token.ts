/** Opaque ListTasks cursors: base64url of the keyset position. Anything else is InvalidParams. */
import { invalidParams } from '../../protocol/a2a/errors.js';

export interface Cursor {
  statusTime: number;
  taskId: string;
  /**
   * The totalSize the listing's first page reported. Later pages answer it again instead of
   * counting: a count of a million tasks costs tens of ms on every page (bench/large-store.js),
   * and keyset pages never show tasks newer than the first page anyway, so the first page's total
   * is the one that matches what the pages hold. Tokens without it (older servers) are counted.
   */
  total?: number;
}

export function encodeCursor(c: Cursor): string {
  const v = c.total === undefined ? [c.statusTime, c.taskId] : [c.statusTime, c.taskId, c.total];
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

export function decodeCursor(token: string, field = 'pageToken'): Cursor {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && (v.length === 2 || v.length === 3) && Number.isSafeInteger(v[0]) && typeof v[1] === 'string') {
      const cursor: Cursor = { statusTime: v[0] as number, taskId: v[1] as string };
      if (v.length === 2) return cursor;
      // A forged total only misstates the caller's own listing, but it must still be a count.
      if (Number.isSafeInteger(v[2]) && (v[2] as number) >= 0) return { ...cursor, total: v[2] as number };
    }
  } catch {
    // fall through
  }
  throw invalidParams(field, 'not a page token returned by this server');
}

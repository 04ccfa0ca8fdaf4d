/**
 * Stable ids for what search finds and fetch opens. They are built from names and key values, not
 * from positions, so the same row keeps its id across restarts and re-profiles:
 *
 *   table:orders                   a table (preview + profile)
 *   column:orders.status           a column profile
 *   row:orders:order_id=42         a row, by its key
 *   row:order_lines:h<md5>         a row of a table without a key, by the hash of its content
 *   result:<16 hex>                a saved query result (the statement is re-run on fetch)
 *
 * Every component is URI-encoded, so an id can travel in a URL path or query unchanged.
 */

export type ItemId =
  | { kind: 'table'; table: string }
  | { kind: 'column'; table: string; column: string }
  | { kind: 'row'; table: string; key: string; value: string }
  | { kind: 'row'; table: string; hash: string }
  | { kind: 'result'; hash: string };

const enc = (s: string): string => encodeURIComponent(s).replace(/\./g, '%2E');

export function formatId(id: ItemId): string {
  switch (id.kind) {
    case 'table':
      return `table:${enc(id.table)}`;
    case 'column':
      return `column:${enc(id.table)}.${enc(id.column)}`;
    case 'row':
      return 'hash' in id ? `row:${enc(id.table)}:h${id.hash}` : `row:${enc(id.table)}:${enc(id.key)}=${enc(id.value)}`;
    case 'result':
      return `result:${id.hash}`;
  }
}

export function parseId(text: string): ItemId | undefined {
  const dec = (s: string): string | undefined => {
    try {
      return decodeURIComponent(s);
    } catch {
      return undefined;
    }
  };
  let m = /^table:([^:.]+)$/.exec(text);
  if (m) {
    const table = dec(m[1]!);
    return table ? { kind: 'table', table } : undefined;
  }
  m = /^column:([^:.]+)\.([^:.]+)$/.exec(text);
  if (m) {
    const table = dec(m[1]!);
    const column = dec(m[2]!);
    return table && column ? { kind: 'column', table, column } : undefined;
  }
  m = /^row:([^:.]+):h([0-9a-f]{32})$/.exec(text);
  if (m) {
    const table = dec(m[1]!);
    return table ? { kind: 'row', table, hash: m[2]! } : undefined;
  }
  m = /^row:([^:.]+):([^=]+)=(.*)$/.exec(text);
  if (m) {
    const table = dec(m[1]!);
    const key = dec(m[2]!);
    const value = dec(m[3]!);
    return table && key && value !== undefined ? { kind: 'row', table, key, value } : undefined;
  }
  m = /^result:([0-9a-f]{16})$/.exec(text);
  if (m) return { kind: 'result', hash: m[1]! };
  return undefined;
}

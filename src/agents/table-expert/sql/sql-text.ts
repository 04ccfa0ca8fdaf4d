/** Quoting for SQL text we build ourselves (DuckDB dialect). */

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `"table"."column"` */
export function qualified(table: string, column: string): string {
  return `${quoteIdent(table)}.${quoteIdent(column)}`;
}

/** A literal for a value the planner compares against. */
export function literal(value: string | number | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return quoteString(value);
}

/**
 * A dataset's semantic layer as its owners write it (agent options or a file beside the data):
 * the shape only, so the options schema can name it without importing the planner.
 */
export interface SemanticColumn {
  description?: string;
  synonyms?: string[];
  unit?: string;
}

export interface SemanticSpec {
  /** `column` (a dataset of one table) or `table.column` → what is said of it */
  columns?: Record<string, SemanticColumn>;
  /** a word people use → `column=value` or `table.column=value` ("American": "country=USA") */
  values?: Record<string, string>;
  /** questions whose SQL the data's owners wrote and checked: answered first, marked verified */
  verified?: Array<{ question: string; sql: string }>;
  /** the date column questions about time use ("in 2017", "by month") when a table has several */
  timeColumn?: string;
  /** a figure with a name: `margin: { sql: 'sum(Profit) / sum(Sales)' }`, an aggregate over one table's columns */
  measures?: Record<string, { sql: string; description?: string }>;
}

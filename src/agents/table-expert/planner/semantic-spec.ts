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
}

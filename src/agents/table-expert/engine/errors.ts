/** What can go wrong running a statement, each with a stable code the A2A and MCP faces map. */
export { QueryRejectedError, type GuardCode } from '../sql/guard.js';

export type QueryErrorCode = 'timeout' | 'memory' | 'canceled' | 'sql_error' | 'unavailable';

export class QueryError extends Error {
  override readonly name = 'QueryError';
  constructor(
    readonly code: QueryErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const queryTimeout = (ms: number) => new QueryError('timeout', `the query ran longer than ${ms} ms and was stopped`);

/**
 * The store contract on a SQLite file with the task commits on the commit thread (ADR 0062); the
 * same contract with the commits on the event loop is in sqlite.test.ts, in memory in
 * sqlite-contract-memory.test.ts.
 */
import { describeSqliteFileContract } from './sqlite-file-contract.js';

describeSqliteFileContract('sqlite (file, WAL, commit thread)', true);

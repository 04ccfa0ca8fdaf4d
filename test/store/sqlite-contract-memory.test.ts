/**
 * The store contract on an in-memory SQLite database (synchronous=full); on a file in
 * sqlite.test.ts and sqlite-contract-commit-thread.test.ts.
 */
import { openSqliteStore } from '../../src/store/index.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('sqlite (:memory:, synchronous=full)', () => openSqliteStore({ file: ':memory:', synchronous: 'full' }));

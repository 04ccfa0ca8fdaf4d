export * from './store.js';
export { openSqliteStore, SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export { openPostgresStore, PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
export { GroupCommitter, type GroupCommitterOptions } from './group-commit.js';

export * from './store.js';
export type { AuditAppend, AuditQuery, AuditRecord, AuditRecordOutcome, AuditStore, AuditVerification } from './audit-store.js';
export type { OAuthStore, OAuthRecord, StoredUser } from './oauth-store.js';
export { openSqliteStore, SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export { DataDirLockedError, lockDataDir, type DataDirLock, type LockHolder } from './sqlite/data-dir-lock.js';
export type { PostgresStore, PostgresStoreOptions } from './postgres/postgres-store.js';
export { openPostgresStore } from './postgres/open-on-demand.js';
export { GroupCommitter, type GroupCommitterOptions } from './group-commit.js';

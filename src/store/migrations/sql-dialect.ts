/** The SQL dialects a migration is written for; a step that differs between them branches on it. */
export type SqlDialectName = 'sqlite' | 'postgres';

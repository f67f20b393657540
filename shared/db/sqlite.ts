/**
 * SQLite connections on Node's built-in `node:sqlite` (Node 22.13 and later): no native addon to build
 * or download, so nothing to match to the runtime. The plain driver, the migration runner and Prisma's
 * adapter (sqliteAdapter.ts) each open one. `node:sqlite` is loaded when a connection is opened, so a
 * process on PostgreSQL never needs it.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** How long a statement waits for a write lock another connection holds before it fails. */
export const LOCKED_WAIT_MS = 5000;

/** SQLite's result code for "another connection holds the lock" (SQLITE_BUSY). */
const SQLITE_BUSY = 5;

/**
 * A date as SQLite keeps DateTime columns: ISO 8601 text with `+00:00`, which sorts and compares as
 * text. Prisma's adapter writes its dates with this function and so do statements on the plain
 * connection, so rows from either compare with each other (test/operations/sqlite-adapter.e2e.ts pins it).
 */
export const sqliteDate = (date: Date): string => date.toISOString().replace('Z', '+00:00');

/** A transaction run synchronously: `immediate` takes the write lock at BEGIN, as better-sqlite3's does. */
export interface SqliteTransaction<A extends unknown[], R> {
  immediate(...args: A): R;
}

/** One synchronous SQLite connection. */
export class SqliteConnection {
  readonly db: DatabaseSync;

  /** `waitMs`: its busy timeout; 0 fails at once with SQLITE_BUSY when another connection holds the lock. */
  constructor(file: string, waitMs: number) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
    this.db = new DatabaseSync(file, { timeout: Math.trunc(waitMs) });
  }

  prepare(sql: string): StatementSync {
    return this.db.prepare(sql);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** `fn` between BEGIN IMMEDIATE and COMMIT, rolled back when it throws; BEGIN fails when locked. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R> {
    return {
      immediate: (...args: A): R => {
        this.db.exec('BEGIN IMMEDIATE');
        try {
          const result = fn(...args);
          this.db.exec('COMMIT');
          return result;
        } catch (error) {
          if (this.db.isTransaction) this.db.exec('ROLLBACK');
          throw error;
        }
      },
    };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/** True when the error is SQLITE_BUSY itself: another connection holds the lock, and trying again may work. */
export function isLocked(error: unknown): boolean {
  return (error as { errcode?: unknown }).errcode === SQLITE_BUSY;
}

/**
 * Runs `attempt` until it does not find the database locked, every 2 ms for up to LOCKED_WAIT_MS: the
 * wait a busy timeout would make, without stopping the event loop (and with it a Prisma transaction
 * that holds the lock across awaits).
 */
export async function whenUnlocked<T>(attempt: () => T | Promise<T>): Promise<T> {
  for (const giveUpAt = Date.now() + LOCKED_WAIT_MS; ;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLocked(error) || Date.now() > giveUpAt) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

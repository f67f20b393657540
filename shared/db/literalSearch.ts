/**
 * Search text is literal: `%`, `_` and `\` in what a caller types match themselves. Prisma's `contains`,
 * `startsWith` and `endsWith` become SQL `LIKE` with the text as the pattern, unescaped, so every search
 * goes through `literalText` (or the filters below), which escapes those three with a backslash. PostgreSQL's
 * LIKE reads the backslash as its escape character by default; SQLite's LIKE has none, so the SQLite adapter
 * is wrapped to add `ESCAPE '\'` to each LIKE it runs: one pattern means the same on both databases.
 */
import type { SqlDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import type { DbProvider } from './providers';

/** The text as a LIKE pattern that matches only itself (without the surrounding `%`). */
export const literalText = (text: string): string => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * A filter for text containing `text` literally. The caller lower-cases both sides where search ignores case
 * (search keys, normalized names); `ignoreCase` asks the database instead, for columns kept as typed.
 */
export function containsText(text: string, options: { provider?: DbProvider; ignoreCase?: boolean } = {}): { contains: string; mode?: 'insensitive' } {
  const contains = literalText(text);
  // SQLite's LIKE already ignores case (ASCII); PostgreSQL needs Prisma's insensitive mode (ILIKE).
  return options.ignoreCase && options.provider === 'postgresql' ? { contains, mode: 'insensitive' } : { contains };
}

/** A filter for text starting with `text` literally. */
export const startsWithText = (text: string): { startsWith: string } => ({ startsWith: literalText(text) });

type SqliteQuery = SqlQuery;

const LIKE_WITHOUT_ESCAPE = /\bLIKE \?(?!\s*ESCAPE)/gi;

/** The statement with `ESCAPE '\'` after each LIKE, as PostgreSQL reads its patterns. */
function withLikeEscape(query: SqliteQuery): SqliteQuery {
  if (!/like/i.test(query.sql)) return query;
  return { ...query, sql: query.sql.replace(LIKE_WITHOUT_ESCAPE, "LIKE ? ESCAPE '\\'") };
}

/** The adapter (or a transaction of it) with its statements' LIKEs escaped; everything else as it is. */
function escapingLikes<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'queryRaw' || property === 'executeRaw') return (query: SqliteQuery) => value.call(object, withLikeEscape(query));
      if (property === 'startTransaction') return async (...args: unknown[]) => escapingLikes(await value.apply(object, args));
      return value.bind(object);
    },
  });
}

/** The SQLite adapter factory whose connections read a backslash in LIKE patterns as PostgreSQL does. */
export function withLiteralLike<T extends SqlDriverAdapterFactory>(factory: T): T {
  return new Proxy(factory, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'connect' || property === 'connectToShadowDb') return async () => escapingLikes(await value.call(object));
      return value.bind(object);
    },
  });
}

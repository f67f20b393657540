/**
 * Search text is literal: `%`, `_` and `\` in what a caller types match themselves. Prisma's `contains`,
 * `startsWith` and `endsWith` become SQL `LIKE` with the text as the pattern, unescaped, so every search
 * goes through `literalText` (or the filters below), which escapes those three with a backslash. PostgreSQL's
 * LIKE reads the backslash as its escape character by default; SQLite's LIKE has none, so the SQLite adapter
 * (sqliteAdapter.ts) adds `ESCAPE '\'` to each LIKE it prepares: one pattern means the same on both databases.
 */
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

/**
 * Hostile input that the tests send and `npm run bench -- loopblock` replays to measure the server's longest
 * event-loop block: GraphQL bombs (test/gateway/graphql-limits.part.ts), data-provider schema patterns that backtrack
 * without bound (refused) beside linear ones (accepted), and credentials that are garbage, forged, expired
 * or long (test/gateway/hostile.e2e.ts). One list, so the bench measures exactly what the tests prove is refused.
 */

/**
 * Each bomb in the size the issue reports, and one just past each limit (default limits: 500 tokens,
 * depth 12, 20 aliases, 20 directives).
 */
export const GRAPHQL_BOMBS = {
  repeatedFields: `{ site { ${'name '.repeat(10_000)}} }`,
  aliases: `{ ${Array.from({ length: 5_000 }, (_, index) => `a${index}: site { name }`).join(' ')} }`,
  hugeTokens: `{ ${'__typename '.repeat(20_000)}}`,
  aliasesPastLimit: `{ ${Array.from({ length: 21 }, (_, index) => `a${index}: site { name }`).join(' ')} }`,
  deepNesting: `{ site ${'{ overlays '.repeat(20)}{ id }${' }'.repeat(20)} }`,
  directives: `{ site { name ${'@include(if: true) '.repeat(21)}} }`,
  // Deep nesting through fragments, each a level deeper: counted through the spreads.
  deepFragments: `{ site { ...F0 } } ${Array.from({ length: 14 }, (_, index) => `fragment F${index} on Site { overlays { site { ...F${index + 1} } } }`).join(' ')} fragment F14 on Site { id }`,
};

/** A pattern that backtracks without bound on `${'a'.repeat(28)}!` in a backtracking engine. */
export const HOSTILE_PATTERN = '^(\\w+\\s?)*$';
/** More patterns a data-provider schema may not hold (not provably linear). */
export const REFUSED_PATTERNS = ['(x+x+)+y', '^(a|a)*$', '\\s*\\s*$'];
/** The text that makes HOSTILE_PATTERN backtrack. */
export const BACKTRACKING_TEXT = `${'a'.repeat(28)}!`;

/** A data-provider event schema whose `data.text` must match `pattern`. */
export const schemaWithPattern = (pattern: string) => ({
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'object', properties: { text: { type: 'string', pattern } } } },
});

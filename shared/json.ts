/** Reading values out of stored JSON columns. */

/** The string items of a JSON array; anything else reads as an empty list. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Reading values out of stored JSON columns. */

/** The string items of a JSON array; anything else reads as an empty list. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * The value at a dotted path (`data.score`, `meta.type`) of a JSON value, or undefined when a step is
 * missing. Array items are reached by index (`items.0.name`).
 */
export function valueAtPath(value: unknown, path: string): unknown {
  let current = value;
  for (const step of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

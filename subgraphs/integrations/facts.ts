/** The facts of a data provider: the dotted paths of the leaves of its JSON Schema (data.score, meta.type). */

export function schemaFacts(schema: unknown, prefix = ''): string[] {
  const node = schema as { type?: unknown; properties?: Record<string, unknown> } | null;
  if (!node || typeof node !== 'object' || !node.properties || typeof node.properties !== 'object') {
    return prefix ? [prefix] : [];
  }
  return Object.entries(node.properties).flatMap(([name, child]) => schemaFacts(child, prefix ? `${prefix}.${name}` : name));
}

/**
 * The facts of a data provider: the dotted paths of the leaves of its JSON Schema (data.score,
 * meta.type), sorted, since PostgreSQL's jsonb does not keep the order the schema was written in.
 */

function leaves(schema: unknown, prefix: string): string[] {
  const node = schema as { properties?: Record<string, unknown> } | null;
  if (!node || typeof node !== 'object' || !node.properties || typeof node.properties !== 'object') {
    return prefix ? [prefix] : [];
  }
  return Object.entries(node.properties).flatMap(([name, child]) => leaves(child, prefix ? `${prefix}.${name}` : name));
}

export function schemaFacts(schema: unknown): string[] {
  return leaves(schema, '').sort();
}

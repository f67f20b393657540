/**
 * Example values derived from JSON Schemas, for the request bodies of the OpenAPI document. A schema's
 * own `example`, `default`, `const` or first `enum` value wins; otherwise the smallest value of its type
 * that keeps its bounds, with the required properties of objects only, so the example is what a caller
 * must send at least. Written against the route table's schemas: a keyword this does not know (a
 * `pattern`) needs an `example` beside it, and the OpenAPI lint proves each example matches its schema.
 */
import type { JsonSchema } from './table';

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T12:00:00.000Z',
  date: '2026-01-01',
  email: 'viewer@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '4f1c2d7e-3b9a-4c8e-9f0a-2b6d8e1c5a7f',
};

/** An example value valid against `schema`; `$ref`s to `#/components/schemas/X` resolve in `components`. */
export function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 12) return null;
  const next = (inner: unknown) => exampleOf(inner as JsonSchema, components, depth + 1);
  if (typeof schema.$ref === 'string') return next(components[schema.$ref.replace('#/components/schemas/', '')] ?? {});
  for (const key of ['example', 'default', 'const'] as const) if (schema[key] !== undefined) return schema[key];
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((part) => next(part) as object));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const choices = schema[key];
    if (Array.isArray(choices)) return next(choices.find((choice) => (choice as JsonSchema).type !== 'null') ?? choices[0]);
  }
  const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[]).find((item) => item !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return objectExample(schema, next);
    case 'array': {
      const count = Math.max(1, Number(schema.minItems ?? 1));
      const item = schema.items ? next(schema.items) : 'example';
      return schema.uniqueItems && count === 1 ? [item] : Array.from({ length: count }, () => item);
    }
    case 'string':
      return stringExample(schema);
    case 'integer':
    case 'number':
      return numberExample(schema, type);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return schema.properties ? objectExample(schema, next) : 'example';
  }
}

function objectExample(schema: JsonSchema, next: (inner: unknown) => unknown): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const names = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  // An object that needs some property but names none required gets its first one.
  const chosen = names.length || !schema.minProperties ? names : Object.keys(properties).slice(0, 1);
  return Object.fromEntries(chosen.map((name) => [name, next(properties[name] ?? {})]));
}

function stringExample(schema: JsonSchema): string {
  const formatted = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined;
  if (formatted) return formatted;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  const text = 'example'.padEnd(min, 'x');
  return text.slice(0, Math.max(min, Math.min(text.length, max)));
}

function numberExample(schema: JsonSchema, type: 'integer' | 'number'): number {
  let value = 1;
  if (typeof schema.minimum === 'number') value = Math.max(value, schema.minimum);
  if (typeof schema.exclusiveMinimum === 'number') value = Math.max(value, schema.exclusiveMinimum + 1);
  if (typeof schema.maximum === 'number') value = Math.min(value, schema.maximum);
  if (typeof schema.exclusiveMaximum === 'number') value = Math.min(value, schema.exclusiveMaximum - 1);
  return type === 'integer' ? Math.ceil(value) : value;
}

/** One sentence for a JSON Schema (ajv) validation error, naming the field it is about. */
import type { ErrorObject } from 'ajv';

/** `where` names the validated value (body, or an event's root); the error's path is appended with dots. */
export function describeSchemaError(error: ErrorObject, where: string): string {
  const field = [where, ...error.instancePath.split('/').filter(Boolean)].filter(Boolean).join('.');
  if (error.keyword === 'required') return `${field ? `${field}.` : ''}${(error.params as { missingProperty: string }).missingProperty} is required`;
  if (error.keyword === 'additionalProperties')
    return `${field ? `${field}.` : ''}${(error.params as { additionalProperty: string }).additionalProperty} is not allowed`;
  if (error.keyword === 'enum') return `${field || 'the value'} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${field || 'the value'} ${error.message ?? 'is invalid'}`;
}

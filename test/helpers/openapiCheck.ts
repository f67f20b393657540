/**
 * Answers match the document: every REST answer a test receives through `rest()` is checked against
 * the OpenAPI document the code builds (rest-bridge/openapi.ts from the route table). The route is
 * found by method and path template; the status must be one the operation documents and the JSON body
 * must match that response's schema (OpenAPI 3.0: `nullable`, `$ref` into components, checked by
 * ajv). A mismatch throws an OpenApiMismatch, so the test that made the call fails and names the drift —
 * at once, also inside a wait: it is a NotRetryable, which `until` and `eventually` never read as "not yet".
 *
 * Each checked answer is counted in a file per test process (one byte per answer) in the directory
 * jest's globalSetup names; globalTeardown prints the total for the run.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../rest-bridge/openapi';
import { routes } from '../../rest-bridge/routes';
import { NotRetryable } from './wait';

/** An answer that does not match the OpenAPI document: a verdict on the code, which no amount of waiting changes. */
export class OpenApiMismatch extends NotRetryable {
  override readonly name = 'OpenApiMismatch';
}

/** Where the per-process counts go; set by test/helpers/globalSetup.ts. */
export const COUNT_DIR_VARIABLE = 'STAGEGRAPH_OPENAPI_COUNT_DIR';

interface MediaType {
  schema?: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Template {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
  operation: Operation;
}

const document = buildOpenApiDocument(routes) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

// A literal segment beats a parameter: /poll/v3/results matches its own route before /poll/v3/{id}.
const templates: Template[] = Object.entries(document.paths)
  .flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method,
      path,
      // express matches with or without the trailing slash, so the check does too.
      pattern: new RegExp(
        `^${path
          .replace(/\/$/, '')
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\{\w+\}/g, '[^/]+')}/?$`,
      ),
      params: (path.match(/\{/g) ?? []).length,
      operation,
    })),
  )
  .sort((a, b) => a.params - b.params);

// `nullable` is OpenAPI 3.0's keyword, which ajv knows; `example`, `style`… are ignored (strict off).
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/**
 * OpenAPI 3.0 to JSON Schema: `nullable: true` admits null beside whatever else the schema says (also
 * around `allOf: [$ref]`, the 3.0 way to write a nullable reference), as generators read it.
 */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, toJsonSchema(value)]));
  return nullable === true ? { anyOf: [{ type: 'null' }, converted] } : converted;
}

// The components are added once; each response schema refers into them, so compiling one stays cheap
// (compiling every component again per response held the test process's event loop for 100+ ms).
ajv.addSchema({ $id: 'openapi', components: toJsonSchema(document.components) });

function validatorFor(key: string, schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(toJsonSchema(schema)).replaceAll('"#/components/', '"openapi#/components/')));
    compiled.set(key, validate);
  }
  return validate;
}

function count(): void {
  const dir = process.env[COUNT_DIR_VARIABLE];
  if (dir) appendFileSync(join(dir, `${process.pid}.count`), '.');
}

/**
 * Checks one REST answer against the document. Paths the document does not describe (/graphql,
 * /health, an unknown path) are not REST routes and pass unchecked.
 */
export function checkAgainstOpenApi(method: string, url: string, status: number, contentType: string | null, text: string): void {
  const path = url.split('?')[0];
  const template = templates.find((candidate) => candidate.method === method.toLowerCase() && candidate.pattern.test(path));
  if (!template) return;
  const where = `${method.toUpperCase()} ${path} (${template.operation.operationId}, ${template.path})`;
  const response = template.operation.responses[String(status)];
  if (!response) {
    throw new OpenApiMismatch(
      `${where} answered ${status}, which the OpenAPI document does not list (it lists ${Object.keys(template.operation.responses).join(', ')}): ${text.slice(0, 300)}`,
    );
  }
  const mediaType = (contentType ?? '').split(';')[0].trim();
  const media = response.content?.[mediaType];
  if (!media) {
    if (!response.content && !text) return count();
    throw new OpenApiMismatch(
      `${where} answered ${status} as ${mediaType || 'no content type'}, which the document does not list for it (${Object.keys(response.content ?? {}).join(', ') || 'no body'})`,
    );
  }
  if (mediaType === 'application/json' && media.schema) {
    const validate = validatorFor(`${template.operation.operationId} ${status}`, media.schema);
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new OpenApiMismatch(`${where} answered ${status} as application/json with a body that is not JSON: ${text.slice(0, 300)}`);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath || '(body)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);
      throw new OpenApiMismatch(
        `${where} answered ${status} with a body that does not match the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 500)}`,
      );
    }
  }
  count();
}

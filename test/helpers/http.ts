/**
 * Small fetch helpers for REST and GraphQL calls against a started stack. Every REST answer is checked
 * against the OpenAPI document (status and body): a route whose answer drifts from it fails the test.
 */
import type { Stack } from '../../stack';
import { checkAgainstOpenApi } from './openapiCheck';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function rest<T = any>(
  stack: Pick<Stack, 'url'>,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string; contentType?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(`${stack.url}${path}`, { method, headers, body });
  const text = await response.text();
  checkAgainstOpenApi(method, path, response.status, response.headers.get('content-type'), text);
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

export async function graphql<T = any>(
  stack: Pick<Stack, 'url'>,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Reply<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>> {
  return rest(stack, 'POST', '/graphql', { headers, body: { query, variables } });
}

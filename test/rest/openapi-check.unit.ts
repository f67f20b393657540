/**
 * The OpenAPI check of test answers (test/helpers/openapiCheck.ts) inside a wait: a polled answer that does not
 * match the document fails the wait at once, with the drift named, instead of being read as "not yet" until the
 * deadline passes and the mismatch is lost behind it.
 */
import { checkAgainstOpenApi, OpenApiMismatch } from '../helpers/openapiCheck';
import { DEADLINE_MS, NotRetryable, until } from '../helpers/wait';

const RESULTS = '/poll/v3/p1/results';

it('an answer the document does not list fails a wait at its first read', async () => {
  let reads = 0;
  const started = Date.now();
  const waited = until(
    () => {
      reads += 1;
      checkAgainstOpenApi('GET', RESULTS, 418, 'application/json', '{}');
      return reads;
    },
    () => false,
    'an answer that is never right',
  );
  await expect(waited).rejects.toThrow(/GET \/poll\/v3\/p1\/results .* answered 418, which the OpenAPI document does not list/);
  await expect(waited).rejects.toBeInstanceOf(OpenApiMismatch);
  expect(reads).toBe(1);
  expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
});

it('a body that does not match its schema, or is not JSON, is a mismatch that no wait retries', () => {
  const mismatches = [
    () => checkAgainstOpenApi('GET', RESULTS, 200, 'application/json', '"not the results"'),
    () => checkAgainstOpenApi('GET', RESULTS, 200, 'application/json', '{"total":'),
    () => checkAgainstOpenApi('GET', RESULTS, 200, 'text/html', '<p>hi</p>'),
  ];
  for (const mismatch of mismatches) {
    expect(mismatch).toThrow(OpenApiMismatch);
    expect(mismatch).toThrow(NotRetryable);
  }
});

it('an answer that matches passes, and a path the document does not describe is not checked', () => {
  expect(() => checkAgainstOpenApi('GET', '/health', 500, 'text/plain', 'down')).not.toThrow();
  expect(() => checkAgainstOpenApi('GET', RESULTS, 404, 'application/json', '{"success":false,"message":"poll p1 not found"}')).not.toThrow();
});

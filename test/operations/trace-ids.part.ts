/**
 * With tracing off (no collector configured) log lines still join: every line of a request carries a
 * trace id, the caller's from its `traceparent`, else one made for the request.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '../../shared/logger';
import { tracingEnabled } from '../../shared/tracing';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll } from '../helpers/stack';

afterAll(stopAll);

it('logs the caller’s trace id, or a new one per request, with tracing off', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const stack = await startTestStack({ logger: createLogger('info', 'stagegraph', sink) });
  expect(tracingEnabled()).toBe(false);
  const site = await createTestSite(stack);

  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  expect((await graphql(stack, '{ overlays { id } }', {}, { ...site.admin, traceparent, 'x-request-id': 'given-trace' })).status).toBe(200);
  expect((await rest(stack, 'GET', '/overlay/v1', { headers: { ...site.admin, 'x-request-id': 'own-trace-1' } })).status).toBe(200);
  expect((await rest(stack, 'GET', '/overlay/v1', { headers: { ...site.admin, 'x-request-id': 'own-trace-2' } })).status).toBe(200);
  // A malformed traceparent is ignored, not trusted.
  expect(
    (
      await rest(stack, 'GET', '/overlay/v1', {
        headers: { ...site.admin, traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`, 'x-request-id': 'zero-trace' },
      })
    ).status,
  ).toBe(200);

  const byRequest = (id: string) => lines.find((line) => line.msg === 'request' && line.requestId === id) as { trace_id?: string };
  expect(byRequest('given-trace').trace_id).toBe(traceId);
  const own = [byRequest('own-trace-1').trace_id, byRequest('own-trace-2').trace_id, byRequest('zero-trace').trace_id];
  for (const id of own) expect(id).toMatch(/^[0-9a-f]{32}$/);
  expect(new Set([...own, traceId]).size).toBe(4);
  expect(own[2]).not.toBe('0'.repeat(32));
});

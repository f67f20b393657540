/** /health, /ready, request ids, body limits, graceful shutdown, and migrations that run once. */
import { migrateDatabase } from '../shared/db/migrate';
import { createTestSite, startTestStack, stopAll } from './helpers/stack';
import { rest } from './helpers/http';
import { watch } from './helpers/viewer';

afterAll(stopAll);

it('serves /health and /ready with the dependencies it checked', async () => {
  const stack = await startTestStack();
  expect((await rest(stack, 'GET', '/health')).body).toEqual({ status: 'ok', runtime: process.version, draining: false, bus: { connected: true } });
  const ready = await rest(stack, 'GET', '/ready');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ ready: true, draining: false, database: true });
});

it('gives every answer a request id, keeping a well-formed one the caller sent', async () => {
  const stack = await startTestStack();
  const own = await rest(stack, 'GET', '/health', { headers: { 'x-request-id': 'trace-123' } });
  expect(own.headers.get('x-request-id')).toBe('trace-123');
  const generated = await rest(stack, 'GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
  expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]{24}$/);
});

it('refuses a body over the limit with 413', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const html = 'x'.repeat(stack.config.bodyLimitBytes + 10);
  const reply = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'big', type: 'template', contents: { html }, duration: 5 } });
  expect(reply.status).toBe(413);
  expect(reply.body).toEqual({ success: false, message: 'request body too large' });
});

it('applies migrations once: a second run changes nothing', async () => {
  const stack = await startTestStack();
  expect(await migrateDatabase(stack.config.databaseUrl)).toEqual([]);
});

it('shuts down gracefully: viewers get 1001, the in-flight request finishes, then the port is closed', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const viewer = await watch(stack, { siteId: site.siteId, channelId: 'stage' });
  const inFlight = rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
  await new Promise((resolve) => setTimeout(resolve, 5));
  await stack.close();
  expect(await viewer.closed).toBe(1001);
  expect((await inFlight).status).toBe(200);
  await expect(fetch(`${stack.url}/health`)).rejects.toThrow();
});

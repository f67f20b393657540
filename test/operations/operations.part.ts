/** /health, /ready, request ids, body limits, graceful shutdown, migrations that run once, and a data migration's backfill. */
import { request as httpRequest } from 'node:http';
import { migrateDatabase } from '../../shared/db/migrate';
import { createChannel, createTestSite, startTestStack, stopAll } from '../helpers/stack';
import { rest } from '../helpers/http';
import { watch } from '../helpers/viewer';

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

it('backfills the panels of channels stored before their sidebars were kept as references', async () => {
  const stack = await startTestStack();
  const { prisma } = stack.database;
  const now = new Date();
  const sidebar = (items: object) => ({ data: { name: 'Old' }, renderers: { sidebar: { items } } });
  const pages = [
    {
      id: 'old-channel',
      type: 'channel',
      document: sidebar([
        { array_id: 'a', id: 'panel-1' },
        { array_id: 'b', id: 'panel-2' },
        { array_id: 'c', id: 'panel-1' },
      ]),
    },
    { id: 'old-landing', type: 'landing', document: sidebar([{ array_id: 'a', id: 'panel-1' }]) },
    { id: 'odd-channel', type: 'channel', document: sidebar({ id: 'panel-3' }) },
    { id: 'bare-channel', type: 'channel', document: { data: { name: 'Bare' } } },
  ];
  // Stored as before the change: straight into the table, no references.
  for (const page of pages)
    await prisma.page.create({ data: { ...page, siteId: 'site-old', slug: page.id, name: 'Old', tags: [], createdAt: now, updatedAt: now } });
  const migration = '20261127090000_channel_panel_references';
  await prisma.$executeRawUnsafe(`DELETE FROM "_stagegraph_migrations" WHERE "name" = '${migration}'`);
  expect(await migrateDatabase(stack.config.databaseUrl)).toEqual([migration]);
  const references = await prisma.contentReference.findMany({ where: { siteId: 'site-old' }, orderBy: { targetId: 'asc' } });
  expect(references).toEqual(
    ['panel-1', 'panel-2'].map((targetId) => ({
      siteId: 'site-old',
      sourceCollection: 'pages',
      sourceId: 'old-channel',
      sourceName: 'Old',
      targetCollection: 'panels',
      targetId,
    })),
  );
});

it('shuts down gracefully: viewers get 1001, the in-flight request finishes, then the port is closed', async () => {
  const stack = await startTestStack();
  const site = await createTestSite(stack);
  const viewer = await watch(stack, { siteId: site.siteId, channelId: await createChannel(stack, site.siteId) });
  // A request surely in flight when the close begins: the server has its head, and the rest of its body is
  // sent only after close() was called.
  const arrived = new Promise<void>((resolve) => stack.httpServer.once('request', () => resolve()));
  const request = httpRequest(`${stack.url}/overlay/v1`, { method: 'POST', headers: { ...site.admin, 'content-type': 'application/json' } });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
  const body = JSON.stringify({ name: 'In flight', type: 'template', contents: { html: '<p>still answered</p>' }, duration: 5 });
  request.write(body.slice(0, 10));
  await arrived;
  const closing = stack.close();
  request.end(body.slice(10));
  await closing;
  expect(await viewer.closed).toBe(1001);
  const inFlight = await answered;
  expect(inFlight.status).toBe(200);
  expect(JSON.parse(inFlight.body)).toMatchObject({ name: 'In flight' });
  await expect(fetch(`${stack.url}/health`)).rejects.toThrow();
});

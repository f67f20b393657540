/** Structured logs carry a request id for every request and never a credential. */
import pino from 'pino';
import { Writable } from 'node:stream';
import { REDACTED_PATHS } from '../../shared/logger';
import { createTestSite, startTestStack, stopAll } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { watch } from '../helpers/viewer';

afterAll(stopAll);

it('logs each request as JSON with its id, and no key, token or password anywhere', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  const stack = await startTestStack({ logger });
  const site = await createTestSite(stack);
  const token = await site.token([{ pageId: [], scope: '*', write: true }]);

  await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
  await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}` } });
  await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-client-id': site.siteId, 'x-service-developer-key': 'sgk_wrong-key-value' } });
  await graphql(stack, '{ overlays { id } }', {}, site.admin);
  const viewer = await watch(stack, { siteId: site.siteId, token });
  await viewer.close();

  const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
  expect(requests.length).toBeGreaterThanOrEqual(4);
  for (const entry of requests) expect(entry.requestId).toMatch(/^[0-9a-f]{24}$/);
  const all = lines.join('\n');
  for (const secret of [site.developerKey, token, 'sgk_wrong-key-value', stack.config.jwtSecret, stack.config.internalSecret]) {
    expect(all).not.toContain(secret);
  }
});

/** POST /billing/v1/status/wallet-pay-verify: the site's own domain verified for wallet payments. */
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
});
afterAll(stopAll);

it('refuses a site without a domain in its settings, then verifies the one it sets', async () => {
  const missing = await rest(stack, 'POST', '/billing/v1/status/wallet-pay-verify', { headers: site.admin });
  expect(missing.status).toBe(400);
  expect(missing.body.message).toMatch(/settings\.domain/);

  await rest(stack, 'PUT', '/site/v1/', { headers: site.admin, body: { settings: { domain: 'not a domain' } } });
  expect((await rest(stack, 'POST', '/billing/v1/status/wallet-pay-verify', { headers: site.admin })).status).toBe(400);

  expect((await rest(stack, 'PUT', '/site/v1/', { headers: site.admin, body: { settings: { domain: 'Tickets.Example.com' } } })).status).toBe(200);
  const verified = await rest(stack, 'POST', '/billing/v1/status/wallet-pay-verify', { headers: site.admin });
  expect(verified.status).toBe(200);
  expect(verified.body).toBe(true);
  const state = await graphql(stack, '{ walletPayVerification { domain verifiedAt } }', {}, site.admin);
  expect(state.body.data.walletPayVerification).toEqual({ domain: 'tickets.example.com', verifiedAt: expect.any(Number) });
});

it('needs the Billing write permission with a JWT', async () => {
  const reader = await site.token([{ pageId: [], scope: 'Billing', write: false }]);
  const reply = await rest(stack, 'POST', '/billing/v1/status/wallet-pay-verify', {
    headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${reader}` },
  });
  expect(reply.status).toBe(403);
  const writer = await site.token([{ pageId: [], scope: 'Billing', write: true }]);
  const allowed = await rest(stack, 'POST', '/billing/v1/status/wallet-pay-verify', {
    headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${writer}` },
  });
  expect(allowed.status).toBe(200);
});

/**
 * Bundles are sold and granted as what they hold (seed 001's Bundle: sku, price, items): buying a bundle's
 * SKU grants each entitlement its items name at the bundle's price, and a refund takes them all back; an
 * access code of the bundle's SKU grants them all once; an admin grants a bundle by ID or SKU. A bundle
 * without a price cannot be bought, and one SKU never names both a bundle and an entitlement.
 */
import type { Stack } from '../../stack';
import { activeSkus, createSku, join, purchase, viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Bundled site');
  const saturday = await createSku(stack, site, 'saturday', { value: 20, currency: 'EUR' });
  await createSku(stack, site, 'sunday', { value: 20, currency: 'EUR' });
  await createSku(stack, site, 'extra', { value: 5, currency: 'EUR' });
  const weekend = await rest(stack, 'POST', '/bundle/v1/', {
    headers: site.admin,
    body: {
      name: 'Weekend pass',
      sku: 'weekend',
      presentmentCurrency: 'EUR',
      price: 30,
      // One by ID, one by SKU, and an item that is no entitlement (a channel): only the entitlements are granted.
      items: [
        { id: saturday._id, type: 'entitlement' },
        { id: 'sunday', type: 'ticket' },
        { id: 'main-stage', type: 'channel' },
      ],
    },
  });
  expect(weekend.status).toBeLessThan(300);
  const unpriced = await rest(stack, 'POST', '/bundle/v1/', {
    headers: site.admin,
    body: { name: 'Gift', sku: 'gift', presentmentCurrency: 'EUR', items: [{ id: 'extra', type: 'entitlement' }] },
  });
  expect(unpriced.status).toBeLessThan(300);
});
afterAll(stopAll);

it('sells a bundle at its price, granting each of its entitlements; a refund takes them all back', async () => {
  const member = await join(stack, site);
  const bought = await purchase(stack, site, member, { sku: 'weekend' });
  expect(bought.charge.amount).toBe(30);
  expect(await activeSkus(stack, site, member.jwt)).toEqual(['saturday', 'sunday']);

  const refund = await rest(stack, 'POST', '/billing/v1/refund', {
    headers: site.admin,
    body: { accountId: member.accountId, chargeId: bought.charge.chargeId, reason: 'requested_by_customer' },
  });
  expect(refund.body).toMatchObject({ success: true, refund: { amount: 30, currency: 'EUR' } });
  const refunded = await stack.database.prisma.subscription.findMany({ where: { accountId: member.accountId } });
  expect(refunded).toHaveLength(2);
  expect(refunded.every((subscription) => subscription.refundedAt !== null)).toBe(true);
});

it('refuses a bundle without a price, another currency and an unknown SKU with 400 naming the field, writing nothing', async () => {
  const member = await join(stack, site);
  const cases: [Record<string, unknown>, string][] = [
    [{ sku: 'gift' }, 'sku'],
    [{ sku: 'weekend', currency: 'USD' }, 'currency'],
    [{ sku: 'nothing-of-ours' }, 'sku'],
  ];
  for (const [body, field] of cases) {
    const reply = await rest(stack, 'POST', '/billing/v1/purchase', {
      headers: site.admin,
      body: { accountId: member.accountId, paymentMethod: 'Visa •••• 4242', ...body },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: expect.stringContaining(`${field}:`) });
  }
  expect(await stack.database.prisma.charge.count({ where: { accountId: member.accountId } })).toBe(0);
  expect(await activeSkus(stack, site, member.jwt)).toEqual([]);
});

it('redeems an access code of the bundle’s SKU once, granting every entitlement it holds', async () => {
  const created = await rest(
    stack,
    'POST',
    `/accesscode/v1/?${new URLSearchParams({ siteId: site.siteId, sku: 'weekend', type: 'subscription', accessCode: 'WEEKEND-1' }).toString()}`,
    {
      headers: site.admin,
    },
  );
  expect(created.status).toBe(200);
  const member = await join(stack, site);
  expect((await rest(stack, 'GET', '/accesscode/v1/consume/WEEKEND-1', { headers: viewer(site, member.jwt) })).status).toBe(200);
  expect(await activeSkus(stack, site, member.jwt)).toEqual(['saturday', 'sunday']);
  const again = await join(stack, site);
  expect((await rest(stack, 'GET', '/accesscode/v1/consume/WEEKEND-1', { headers: viewer(site, again.jwt) })).status).toBe(409);
  expect(await activeSkus(stack, site, again.jwt)).toEqual([]);
});

it('grants a bundle by its SKU to an account, what it does not hold yet; 409 once it holds everything', async () => {
  const member = await join(stack, site);
  const grant = () =>
    rest(stack, 'POST', `/community/v1/grant-entitlement/?${new URLSearchParams({ accountId: member.accountId, subscriptionId: 'weekend' }).toString()}`, {
      headers: site.admin,
    });
  expect((await grant()).body).toMatchObject({ success: true });
  expect(await activeSkus(stack, site, member.jwt)).toEqual(['saturday', 'sunday']);
  expect((await grant()).status).toBe(409);
});

it('keeps one SKU to one thing: a bundle cannot take an entitlement’s SKU', async () => {
  const reply = await rest(stack, 'POST', '/bundle/v1/', { headers: site.admin, body: { name: 'Clash', sku: 'saturday', items: [] } });
  expect(reply.status).toBe(409);
  expect(reply.body.message).toContain('saturday');
});

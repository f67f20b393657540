/**
 * Recurring passes (docs/design.md "Access that ends when it should"): a weekly, monthly or yearly pass ends
 * at its currentPeriodEnd unless renewed. After it the content check refuses and the community shows it
 * `expired`; scheduleCancel keeps it active until the period's end, then it reads `canceled`. Time is
 * the stack's clock, which the test moves: nothing sleeps and the machine's clock is left alone.
 */
import type { Stack } from '../../stack';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

const DAY = 86_400_000;
let clock = Date.now();
let stack: Stack;
let site: TestSite;
let channelId: string;

beforeAll(async () => {
  stack = await startTestStack({ now: () => clock });
  site = await createTestSite(stack, 'Passes');
  for (const [sku, recurrence] of [
    ['weekly-pass', 'week'],
    ['monthly-pass', 'month'],
    ['yearly-pass', 'year'],
  ]) {
    const created = await rest(stack, 'POST', '/entitlement/v1/', {
      headers: site.admin,
      body: { sku, name: sku, prices: [{ currency: 'USD', value: 5 }], recurrence },
    });
    expect(created.status).toBe(201);
  }
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: 'members',
      type: 'channel',
      data: {
        name: 'Members',
        gate: { active: true, kind: 'subscription', gate: { subscriptions: ['weekly-pass', 'monthly-pass', 'yearly-pass'], title: 'Members only' } },
      },
    },
  });
  expect(page.status).toBe(200);
  channelId = page.body._id;
});
afterAll(stopAll);

/** A new viewer holding `sku`, granted now (by the stack's clock), and the pass as the community shows it. */
async function member(sku: string) {
  const { accountId, token } = await site.signIn([]);
  const granted = await rest(stack, 'POST', `/community/v1/grant-entitlement/?accountId=${accountId}&subscriptionId=${sku}`, { headers: site.admin });
  expect(granted.status).toBe(200);
  return {
    accountId,
    token,
    pass: async () => (await rest(stack, 'GET', `/community/v1/account/?accountId=${accountId}`, { headers: site.admin })).body.subscriptions[0],
  };
}

async function access(token: string): Promise<string> {
  const reply = await rest(stack, 'GET', `/pages/v2/content/id/${channelId}`, {
    headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}`, 'x-service-device-id': 'tv' },
  });
  expect(reply.status).toBe(200);
  return reply.body.canIPlayResponse.contentCheck.access;
}

it('plays a monthly pass during its period and refuses it after; the community shows it expired until it is renewed', async () => {
  const viewer = await member('monthly-pass');
  const granted = await viewer.pass();
  expect(granted).toMatchObject({ sku: 'monthly-pass', status: 'active', currentPeriodEnd: clock + 30 * DAY, actions: { canCancel: true } });
  expect(await access(viewer.token)).toBe('full');

  clock = granted.currentPeriodEnd - 1;
  expect(await access(viewer.token)).toBe('full');
  expect((await viewer.pass()).status).toBe('active');

  clock = granted.currentPeriodEnd;
  expect(await access(viewer.token)).toBe('none');
  expect(await viewer.pass()).toMatchObject({ status: 'expired', statusTooltip: expect.stringContaining('Expired on'), actions: { canCancel: false } });
  const me = await graphql(
    stack,
    /* GraphQL */ `{ me { subscriptions { status entitlement { sku } } } }`,
    {},
    { 'x-service-client-id': site.siteId, authorization: `Bearer ${viewer.token}` },
  );
  expect(me.body.data.me.subscriptions).toEqual([{ status: 'expired', entitlement: { sku: 'monthly-pass' } }]);
  const listing = await rest(stack, 'GET', '/community/v1/?offset=0&limit=500&sortBy=created&sortDirection=-1', { headers: site.admin });
  const listed = listing.body.result.results.find((account: { _id: string }) => account._id === viewer.accountId);
  expect(listed.subscriptions.map((held: { status: string }) => held.status)).toEqual(['expired']);
  // The channel filter counts only passes that still run.
  const filter = encodeURIComponent(JSON.stringify({ channelId }));
  const holders = await rest(stack, 'GET', `/community/v1/?offset=0&limit=500&sortBy=created&sortDirection=1&filter=${filter}`, { headers: site.admin });
  expect(holders.body.results.map((item: { accountId: string }) => item.accountId)).not.toContain(viewer.accountId);

  // An ended pass cannot be canceled; a renewal (a new period granted) plays again.
  const cancel = await rest(
    stack,
    'PATCH',
    `/community/v1/update-entitlement/?accountId=${viewer.accountId}&action=cancel&id=${granted.id}&grantRefund=false`,
    { headers: site.admin },
  );
  expect(cancel.status).toBe(409);
  expect(
    (await rest(stack, 'POST', `/community/v1/grant-entitlement/?accountId=${viewer.accountId}&subscriptionId=monthly-pass`, { headers: site.admin })).status,
  ).toBe(200);
  expect(await access(viewer.token)).toBe('full');
});

it.each([
  ['weekly-pass', 7],
  ['yearly-pass', 365],
])('ends a %s after %i days', async (sku, days) => {
  const viewer = await member(sku);
  const granted = await viewer.pass();
  expect(granted.currentPeriodEnd).toBe(clock + days * DAY);
  expect(await access(viewer.token)).toBe('full');
  clock = granted.currentPeriodEnd;
  expect(await access(viewer.token)).toBe('none');
  expect((await viewer.pass()).status).toBe('expired');
});

it('scheduleCancel keeps the pass active until its period ends, then it reads canceled', async () => {
  const viewer = await member('monthly-pass');
  const granted = await viewer.pass();
  const scheduled = await rest(
    stack,
    'PATCH',
    `/community/v1/update-entitlement/?accountId=${viewer.accountId}&action=scheduleCancel&id=${granted.id}&grantRefund=false`,
    { headers: site.admin },
  );
  expect(scheduled.status).toBe(200);
  expect(scheduled.body).toEqual({ success: true, message: expect.stringContaining('cancels on') });

  clock = granted.currentPeriodEnd - 1;
  expect(await viewer.pass()).toMatchObject({ status: 'active', statusTooltip: expect.stringContaining('cancels on') });
  expect(await access(viewer.token)).toBe('full');

  clock = granted.currentPeriodEnd;
  expect(await viewer.pass()).toMatchObject({ status: 'canceled', dateCanceled: granted.currentPeriodEnd });
  expect(await access(viewer.token)).toBe('none');
  // Once it has ended there is nothing left to schedule.
  const again = await rest(
    stack,
    'PATCH',
    `/community/v1/update-entitlement/?accountId=${viewer.accountId}&action=scheduleCancel&id=${granted.id}&grantRefund=false`,
    { headers: site.admin },
  );
  expect(again.status).toBe(409);
});

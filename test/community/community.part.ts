/**
 * Entitlements and bundles, the payments ledger (purchases, refunds), receipt e-mail over a real SMTP
 * server (custom sender and its DNS records, Handlebars templates; sender domains verified in DNS are
 * test/community/sender-domains.part.ts), community management (listing, search, filters, detail, export, grant and
 * entitlement actions) and quest claim statuses.
 */
import type { Stack } from '../../stack';
import { activeSkus, createSku, join, purchase as buy, viewer, type Member } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { startFakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  stack = await startTestStack({
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Stagegraph <no-reply@stagegraph.test>',
      MAIL_SPF_INCLUDE: '_spf.mail.stagegraph.test',
      PUBLIC_URL: 'https://watch.stagegraph.test/',
    },
  });
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  await createSku(stack, site, 'finals', { value: 25, name: 'Finals ticket' });
  await createSku(stack, site, 'backstage', { value: 5, name: 'Backstage pass' });
  await rest(stack, 'POST', '/entitlement/v1/', {
    headers: site.admin,
    body: {
      sku: 'monthly-pass',
      name: 'Monthly pass',
      recurrence: 'month',
      prices: [
        { currency: 'USD', value: 9.99, default: true },
        { currency: 'JPY', value: 1500 },
      ],
    },
  });
  await createSku(stack, other, 'finals');
});
afterAll(async () => {
  await stopAll();
  await smtp.close();
});

const query = (params: Record<string, string | number | boolean>) =>
  new URLSearchParams(Object.entries(params).map(([key, value]): [string, string] => [key, String(value)])).toString();
const errorCode = (reply: { body: { errors?: { extensions?: { code?: string } }[] } }) => reply.body.errors?.[0]?.extensions?.code;

const purchase = (member: Member, body: object = {}, who: TestSite = site) => buy(stack, who, member, body);

describe('entitlements', () => {
  it('creates one (201) and lists and reads the catalog with a developer key (not the site ID alone)', async () => {
    const created = await rest(stack, 'POST', '/entitlement/v1/', {
      headers: site.admin,
      body: {
        sku: 'vip',
        name: 'VIP',
        prices: [
          { currency: 'usd', value: 99 },
          { currency: 'EUR', value: 89, paymentPriceId: 'price_1' },
        ],
        tags: ['premium'],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'VIP',
      prices: [
        { currency: 'USD', default: true, paymentPriceId: null, value: 99 },
        { currency: 'EUR', default: false, paymentPriceId: 'price_1', value: 89 },
      ],
      recurrence: 'once',
      siteId: site.siteId,
      sku: 'vip',
      subscriptionProvider: 'stagegraph',
      created: expect.any(Number),
      modified: expect.any(Number),
      tags: ['premium'],
    });
    // The catalog is a list: it needs D or J (the site ID alone reads only what a viewer needs).
    expect((await rest(stack, 'GET', '/entitlement/v1/', { headers: viewer(site) })).status).toBe(401);
    const list = await rest(stack, 'GET', '/entitlement/v1/', { headers: site.admin });
    expect(list.body.map((entitlement: { sku: string }) => entitlement.sku)).toEqual(expect.arrayContaining(['finals', 'monthly-pass', 'vip']));
    expect(list.body.every((entitlement: { siteId: string }) => entitlement.siteId === site.siteId)).toBe(true);
    expect((await rest(stack, 'GET', `/entitlement/v1/${created.body._id}`, { headers: site.admin })).body).toEqual(created.body);
    expect((await rest(stack, 'GET', `/entitlement/v1/${created.body._id}`, { headers: other.admin })).status).toBe(404);
    const updated = await rest(stack, 'PUT', `/entitlement/v1/${created.body._id}`, {
      headers: site.admin,
      body: { prices: [{ currency: 'GBP', value: 79 }] },
    });
    expect(updated.body.prices).toEqual([{ currency: 'GBP', default: true, paymentPriceId: null, value: 79 }]);
  });

  it.each([
    ['a SKU that exists', { sku: 'finals', name: 'x', prices: [] }, 409, /already exists/],
    ['a bad currency', { sku: 'e1', name: 'x', prices: [{ currency: 'dollars', value: 1 }] }, 400, /prices\.0\.currency/],
    [
      'two default prices',
      {
        sku: 'e2',
        name: 'x',
        prices: [
          { currency: 'USD', value: 1, default: true },
          { currency: 'EUR', value: 1, default: true },
        ],
      },
      400,
      /at most one default/,
    ],
    [
      'more decimals than the currency has',
      { sku: 'e3', name: 'x', prices: [{ currency: 'JPY', value: 10.5 }] },
      400,
      /prices\.0\.value has more decimals than JPY/,
    ],
    ['an unknown recurrence', { sku: 'e4', name: 'x', prices: [], recurrence: 'daily' }, 400, /body\.recurrence must be one of/],
  ])('refuses %s', async (_label, body, status, message) => {
    const reply = await rest(stack, 'POST', '/entitlement/v1/', { headers: site.admin, body });
    expect(reply.status).toBe(status);
    expect(reply.body.message).toMatch(message);
  });

  it('needs write access to Entitlements for a signed-in account', async () => {
    const member = await join(stack, site);
    expect(
      (await rest(stack, 'POST', '/entitlement/v1/', { headers: viewer(site, member.jwt), body: { sku: 'free-stuff', name: 'x', prices: [] } })).status,
    ).toBe(403);
  });
});

describe('bundles', () => {
  it('creates a bundle of entitlements and reads it with the site ID', async () => {
    const finals = (await rest(stack, 'GET', '/entitlement/v1/', { headers: site.admin })).body.find(
      (entitlement: { sku: string }) => entitlement.sku === 'finals',
    );
    const writer = await site.token([{ pageId: [], scope: 'Entitlements', write: true }]);
    const created = await rest(stack, 'POST', '/bundle/v1/', {
      headers: viewer(site, writer),
      body: {
        name: 'Weekend',
        description: 'Both days',
        image: 'https://cdn.example.test/w.png',
        sku: 'weekend',
        presentmentCurrency: 'USD',
        price: 27.5,
        items: [
          { id: finals._id, type: 'entitlement' },
          { id: 'backstage', type: 'entitlement' },
          { id: 'poster-1', type: 'merch' },
        ],
        siteId: site.siteId,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Weekend',
      description: 'Both days',
      image: 'https://cdn.example.test/w.png',
      sku: 'weekend',
      siteId: site.siteId,
      presentmentCurrency: 'USD',
      price: 27.5,
      items: [
        { id: finals._id, type: 'entitlement' },
        { id: 'backstage', type: 'entitlement' },
        { id: 'poster-1', type: 'merch' },
      ],
      created: expect.any(Number),
      modified: expect.any(Number),
      tags: [],
    });
    expect((await rest(stack, 'GET', `/bundle/v1/${created.body._id}`, { headers: viewer(site) })).body).toEqual(created.body);
    expect((await rest(stack, 'GET', `/bundle/v1/${created.body._id}`, { headers: viewer(other) })).status).toBe(404);
    expect((await rest(stack, 'POST', '/bundle/v1/', { headers: site.admin, body: { sku: 'weekend' } })).status).toBe(409);
    const empty = await rest(stack, 'POST', '/bundle/v1/', { headers: site.admin, body: {} });
    expect(empty.body).toMatchObject({ name: '', items: [], sku: null, price: null, presentmentCurrency: 'USD' });
  });

  it('refuses an item naming an unknown entitlement, naming the item', async () => {
    const reply = await rest(stack, 'POST', '/bundle/v1/', {
      headers: site.admin,
      body: {
        items: [
          { id: 'finals', type: 'entitlement' },
          { id: 'ghost', type: 'subscription' },
        ],
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/items\.1\.id/);
  });
});

describe('purchases, receipts and refunds', () => {
  it('records a purchase: the charge, the entitlement, and the default receipt over SMTP', async () => {
    const member = await join(stack, site, { name: 'Ana <b>López</b>' });
    const bought = await purchase(member, { serviceCharge: 2.5, tax: 2, chargeId: 'ch_first', eventUrl: 'https://fans.example.test/finals' });
    expect(bought.charge).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      chargeId: 'ch_first',
      accountId: member.accountId,
      subscriptionId: bought.subscription._id,
      receiptNumber: expect.stringMatching(/^SG-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/),
      currency: 'USD',
      quantity: 1,
      amount: 29.5,
      refunded: 0,
      refundable: 29.5,
      paymentMethod: 'Visa •••• 4242',
      created: expect.any(Number),
    });
    expect(bought.subscription).toMatchObject({ grantedMethod: 'purchase', status: 'active', presentmentCurrency: 'USD' });
    expect(await activeSkus(stack, site, member.jwt)).toEqual(['finals']);

    const mail = await smtp.next(member.email);
    expect(mail.subject).toBe(`Your receipt ${bought.charge.receiptNumber} for Finals ticket`);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Stagegraph', address: 'no-reply@stagegraph.test' }]);
    for (const expected of [
      bought.charge.receiptNumber,
      'Finals ticket',
      '$25.00',
      '$2.50',
      '$2.00',
      '$29.50',
      'Visa •••• 4242',
      'https://fans.example.test/finals',
    ]) {
      expect(mail.html).toContain(expected);
    }
    expect(mail.html).toContain('Ana &lt;b&gt;López&lt;/b&gt;');
    expect(mail.text).toContain('Total: $29.50');
  });

  it('links a receipt that names no event to the watch page of the channel its SKU opens, for a bundle too', async () => {
    const channel = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: {
        slug: 'finals-stage',
        type: 'channel',
        data: { name: 'Finals', gate: { active: true, kind: 'subscription', gate: { subscriptions: ['finals'] } } },
      },
    });
    expect(channel.status).toBe(200);
    const link = `https://watch.stagegraph.test/embed/v1/watch?siteId=${site.siteId}&channelId=${channel.body._id}`;
    const finals = (await rest(stack, 'GET', '/entitlement/v1/', { headers: site.admin })).body.find(
      (entitlement: { sku: string }) => entitlement.sku === 'finals',
    );
    const pack = await rest(stack, 'POST', '/bundle/v1/', {
      headers: site.admin,
      body: { name: 'Finals pack', sku: 'finals-pack', price: 30, items: [{ id: finals._id, type: 'entitlement' }] },
    });
    expect(pack.status).toBe(200);

    for (const sku of ['finals', 'finals-pack']) {
      const member = await join(stack, site);
      await purchase(member, { sku });
      const mail = await smtp.next(member.email);
      expect(mail.text).toContain(`Event: ${link}`);
      // The href as a browser reads it (Handlebars escapes & and = in the attribute).
      const href = /<a href="([^"]*)">Go to the event<\/a>/.exec(mail.html)?.[1] ?? '';
      expect(href.replace(/&#x3D;/g, '=').replace(/&amp;/g, '&')).toBe(link);
    }
    // A SKU that opens no channel gives no link; a purchase that names its event keeps it.
    const plain = await join(stack, site);
    await purchase(plain, { sku: 'backstage' });
    expect((await smtp.next(plain.email)).text).not.toContain('Event:');
    const named = await join(stack, site);
    await purchase(named, { eventUrl: 'https://fans.example.test/finals' });
    expect((await smtp.next(named.email)).text).toContain('Event: https://fans.example.test/finals');
  });

  it('refunds part, then the rest, never more than what is left; failures answer {success: false, errorMessage}', async () => {
    const member = await join(stack, site);
    const { charge } = await purchase(member, { serviceCharge: 2.5, tax: 2 });
    const refund = (body: object, headers = site.admin) =>
      rest(stack, 'POST', '/billing/v1/refund', {
        headers,
        body: { accountId: member.accountId, chargeId: charge.chargeId, reason: 'requested_by_customer', ...body },
      });

    const part = await refund({ amount: 10 });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({
      success: true,
      errorMessage: null,
      refund: { amount: 10, currency: 'USD', reason: 'requested_by_customer' },
      charge: { refunded: 10, refundable: 19.5 },
    });
    const tooMuch = await refund({ amount: 20 });
    expect(tooMuch.status).toBe(200);
    expect(tooMuch.body).toMatchObject({ success: false, errorMessage: expect.stringMatching(/exceeds what is left of the charge \(19\.5 USD\)/) });
    const rest1 = await refund({});
    expect(rest1.body).toMatchObject({ success: true, refund: { amount: 19.5 }, charge: { refunded: 29.5, refundable: 0 } });
    expect((await refund({})).body).toMatchObject({ success: false, errorMessage: 'this charge is already fully refunded' });
    const stored = await stack.database.prisma.refund.findMany({ where: { charge: { chargeId: charge.chargeId } } });
    expect(stored.map((row) => row.amountMinor).sort((a, b) => a - b)).toEqual([1000, 1950]);
  });

  it('refunds a charge at most once when full refunds race', async () => {
    const member = await join(stack, site);
    const { charge } = await purchase(member);
    const replies = await Promise.all(
      [1, 2, 3].map(() =>
        rest(stack, 'POST', '/billing/v1/refund', {
          headers: site.admin,
          body: { accountId: member.accountId, chargeId: charge.chargeId, reason: 'duplicate' },
        }),
      ),
    );
    expect(replies.map((reply) => reply.body.success).sort()).toEqual([false, false, true]);
    const row = await stack.database.prisma.charge.findFirstOrThrow({ where: { chargeId: charge.chargeId } });
    expect(row.refundedMinor).toBe(row.amountMinor);
  });

  it('refuses bad refunds and keeps charges to their account and site', async () => {
    const member = await join(stack, site);
    const stranger = await join(stack, site);
    const { charge } = await purchase(member);
    const refund = (body: object, headers = site.admin) =>
      rest(stack, 'POST', '/billing/v1/refund', { headers, body: { accountId: member.accountId, chargeId: charge.chargeId, reason: 'duplicate', ...body } });
    expect((await refund({ amount: 1.234 })).body.message).toMatch(/amount has more decimals than USD/);
    expect((await refund({ amount: 0 })).status).toBe(400);
    expect((await refund({ reason: 'changed my mind' })).body.message).toMatch(/body\.reason must be one of/);
    expect((await refund({ accountId: stranger.accountId })).status).toBe(404);
    expect((await refund({ chargeId: 'ch_nope' })).status).toBe(404);
    expect((await refund({}, other.admin)).status).toBe(404);
    expect((await refund({}, viewer(site, member.jwt))).status).toBe(403);
    const billing = await site.token([{ pageId: [], scope: 'Billing', write: true }]);
    expect((await refund({ amount: 1 }, viewer(site, billing))).body.success).toBe(true);
  });

  it('refuses a charge recorded twice, an unknown SKU and a currency without a price', async () => {
    const member = await join(stack, site);
    await purchase(member, { chargeId: 'ch_once' });
    const post = (body: object) =>
      rest(stack, 'POST', '/billing/v1/purchase', {
        headers: site.admin,
        body: { accountId: member.accountId, sku: 'finals', paymentMethod: 'card', ...body },
      });
    expect((await post({ chargeId: 'ch_once' })).status).toBe(409);
    expect((await post({ sku: 'nope' })).body.message).toMatch(/sku: no entitlement/);
    expect((await post({ currency: 'EUR' })).body.message).toMatch(/currency: finals has no price in EUR/);
    const yen = await post({ sku: 'monthly-pass', currency: 'JPY' });
    expect(yen.body.charge).toMatchObject({ currency: 'JPY', amount: 1500 });
  });
});

describe('custom receipt e-mail', () => {
  let mailSite: TestSite;
  beforeAll(async () => {
    mailSite = await createTestSite(stack, 'Mail site');
    await createSku(stack, mailSite, 'finals', { value: 25, name: 'Finals ticket' });
  });

  it('sets the sender and answers the DKIM and SPF records to publish; the key stays for the same domain', async () => {
    const body = { domain: 'Arena.Example.test', fromEmail: 'tickets@arena.example.test', fromName: 'Arena Tickets', replyToEmail: 'help@arena.example.test' };
    const set = await rest(stack, 'PUT', '/customemail/v1/add-sender-email/', { headers: mailSite.admin, body });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      success: true,
      domain: 'arena.example.test',
      fromEmail: 'tickets@arena.example.test',
      fromName: 'Arena Tickets',
      replyToEmail: 'help@arena.example.test',
      status: 'pending',
      checkedAt: null,
      problem: null,
      dnsRecords: [
        {
          purpose: 'dkim',
          type: 'TXT',
          name: 'stagegraph._domainkey.arena.example.test',
          value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/),
        },
        { purpose: 'spf', type: 'TXT', name: 'arena.example.test', value: 'v=spf1 include:_spf.mail.stagegraph.test ?all' },
      ],
    });
    const again = await rest(stack, 'PUT', '/customemail/v1/add-sender-email/', { headers: mailSite.admin, body: { ...body, fromName: 'Arena Box Office' } });
    expect(again.body.dnsRecords[0].value).toBe(set.body.dnsRecords[0].value);
    const stored = await stack.database.prisma.receiptEmail.findUniqueOrThrow({ where: { siteId: mailSite.siteId } });
    expect(stored.dkimPrivateKeyEncrypted).not.toMatch(/PRIVATE KEY/);
    const read = await rest(stack, 'GET', '/customemail/v1/', { headers: mailSite.admin });
    expect(read.body.sender).toMatchObject({ fromName: 'Arena Box Office', dnsRecords: again.body.dnsRecords });
  });

  it.each([
    ['a fromEmail outside the domain', { fromEmail: 'tickets@elsewhere.test' }, /fromEmail must be an address at arena\.example\.test/],
    ['a bad domain', { domain: 'not a domain' }, /domain must be a domain name/],
    ['a bad reply-to', { replyToEmail: 'nope' }, /replyToEmail must be an e-mail/],
  ])('refuses %s', async (_label, change, message) => {
    const body = {
      domain: 'arena.example.test',
      fromEmail: 'tickets@arena.example.test',
      fromName: 'Arena',
      replyToEmail: 'help@arena.example.test',
      ...change,
    };
    const reply = await rest(stack, 'PUT', '/customemail/v1/add-sender-email/', { headers: mailSite.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
  });

  it('sends receipts with the site’s Handlebars template, from the default sender while its domain is unverified; DELETE brings the default template back', async () => {
    await rest(stack, 'PUT', '/customemail/v1/add-sender-email/', {
      headers: mailSite.admin,
      body: { domain: 'arena.example.test', fromEmail: 'tickets@arena.example.test', fromName: 'Arena Tickets', replyToEmail: 'help@arena.example.test' },
    });
    const template = await rest(stack, 'PUT', '/customemail/v1/receipt/', {
      headers: mailSite.admin,
      body: {
        subject: 'Tickets & more: {{receiptNumber}}',
        template: '<h1>{{ticketName}}</h1><p>{{customerName}} paid {{totalAmount}} with {{paymentMethod}}</p>',
      },
    });
    expect(template.status).toBe(200);
    expect(template.body).toMatchObject({
      success: true,
      custom: true,
      subject: 'Tickets & more: {{receiptNumber}}',
      variables: expect.arrayContaining(['receiptNumber', 'totalAmount', 'accessInstructions']),
    });

    const member = await join(stack, mailSite, { name: '<script>x</script>' });
    const { charge } = await purchase(member, {}, mailSite);
    const mail = await smtp.next(member.email);
    expect(mail.subject).toBe(`Tickets & more: ${charge.receiptNumber}`);
    // Pending: never from the site's domain before its DNS is verified (test/community/sender-domains.part.ts verifies it).
    expect(mail.parsed.from?.value).toEqual([{ name: 'Stagegraph', address: 'no-reply@stagegraph.test' }]);
    expect(mail.parsed.replyTo).toBeUndefined();
    expect(mail.html).toBe('<h1>Finals ticket</h1><p>&lt;script&gt;x&lt;/script&gt; paid $25.00 with Visa •••• 4242</p>');
    expect(mail.raw).not.toMatch(/^DKIM-Signature:/m);

    const removed = await rest(stack, 'DELETE', '/customemail/v1/receipt/', { headers: mailSite.admin });
    expect(removed.body).toMatchObject({ success: true, custom: false, subject: 'Your receipt {{receiptNumber}} for {{ticketName}}' });
    await purchase(member, {}, mailSite);
    const defaultMail = await smtp.next(member.email);
    expect(defaultMail.subject).toMatch(/^Your receipt SG-/);
    expect(defaultMail.html).toContain('Thank you for your purchase');
  });

  it.each([
    ['a broken template', { subject: 'Receipt', template: '<p>{{#if total}}</p>' }, /template is not a valid Handlebars template/],
    ['an unknown helper', { subject: 'Receipt', template: '<p>{{shout totalAmount}}</p>' }, /template is not a valid Handlebars template/],
    ['a broken subject', { subject: 'Receipt {{', template: '<p>ok</p>' }, /subject is not a valid Handlebars template/],
  ])('refuses %s with 400 and keeps the template', async (_label, body, message) => {
    const reply = await rest(stack, 'PUT', '/customemail/v1/receipt/', { headers: mailSite.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
    expect((await rest(stack, 'GET', '/customemail/v1/', { headers: mailSite.admin })).body.template.template).not.toBe(body.template);
  });

  it('needs the CustomEmail permission, site by site', async () => {
    const member = await join(stack, mailSite);
    expect(
      (await rest(stack, 'PUT', '/customemail/v1/receipt/', { headers: viewer(mailSite, member.jwt), body: { subject: 's', template: 't' } })).status,
    ).toBe(403);
    expect((await rest(stack, 'GET', '/customemail/v1/', { headers: other.admin })).body).toMatchObject({ sender: null, template: { custom: false } });
  });
});

describe('community management', () => {
  let community: TestSite;
  let ana: Member;
  let bob: Member;
  let cleo: Member;
  let receiptNumber: string;

  beforeAll(async () => {
    community = await createTestSite(stack, 'Community');
    await createSku(stack, community, 'finals', { value: 25, name: 'Finals ticket' });
    await rest(stack, 'POST', '/entitlement/v1/', {
      headers: community.admin,
      body: { sku: 'monthly-pass', name: 'Monthly pass', recurrence: 'month', prices: [{ currency: 'USD', value: 9.99 }] },
    });
    ana = await join(stack, community, { name: 'Ana Alvarez', marketingOptin: true });
    bob = await join(stack, community, { name: 'Bob Brown' });
    cleo = await join(stack, community, { name: '=HYPERLINK("x")' });
    receiptNumber = (await purchase(ana, { serviceCharge: 1 }, community)).charge.receiptNumber;
    await rest(stack, 'POST', `/accesscode/v1/?${query({ accessCode: 'BOB-CODE', siteId: community.siteId, sku: 'monthly-pass', type: 'subscription' })}`, {
      headers: community.admin,
    });
    await rest(stack, 'GET', '/accesscode/v1/consume/BOB-CODE', { headers: viewer(community, bob.jwt) });
  });

  const list = (params: Record<string, string | number>, headers = community.admin) =>
    rest(stack, 'GET', `/community/v1/?${query({ offset: 0, sortBy: 'name', sortDirection: 1, ...params })}`, { headers });
  const names = (reply: { body: { results: { name: string }[] } }) => reply.body.results.map((item) => item.name);

  it('lists accounts with the seed’s two shapes, sorted, with paging links', async () => {
    const reply = await list({});
    expect(reply.status).toBe(200);
    expect(names(reply)).toEqual(['=HYPERLINK("x")', 'Ana Alvarez', 'Bob Brown']);
    expect(reply.body.results[1]).toEqual({
      accountId: ana.accountId,
      userId: null,
      created: expect.any(Number),
      lastLogin: expect.any(Number),
      marketingOptin: true,
      name: 'Ana Alvarez',
      email: ana.email,
      service: 'stagegraph',
      siteId: community.siteId,
      thumbnail: null,
      roles: [],
    });
    expect(reply.body.result.results.map((account: { _id: string }) => account._id)).toEqual(
      reply.body.results.map((item: { accountId: string }) => item.accountId),
    );
    expect(reply.body.result.forceExport).toBe(false);
    expect(reply.body.result.pagination).toEqual({
      first: '/community/v1/?offset=0&limit=50&sortBy=name&sortDirection=1',
      last: '/community/v1/?offset=0&limit=50&sortBy=name&sortDirection=1',
      next: null,
      prev: null,
      self: '/community/v1/?offset=0&limit=50&sortBy=name&sortDirection=1',
    });
    const paged = await list({ limit: 1, offset: 1, sortBy: 'created', sortDirection: -1 });
    expect(names(paged)).toEqual(['Bob Brown']);
    expect(paged.body.result.pagination).toMatchObject({
      next: '/community/v1/?offset=2&limit=1&sortBy=created&sortDirection=-1',
      prev: '/community/v1/?offset=0&limit=1&sortBy=created&sortDirection=-1',
      last: '/community/v1/?offset=2&limit=1&sortBy=created&sortDirection=-1',
    });
  });

  it('searches by account info, entitlements, paid entitlements, access code and receipt number', async () => {
    expect(names(await list({ searchBy: 'accountInfo', searchQuery: 'alvarez' }))).toEqual(['Ana Alvarez']);
    expect(names(await list({ searchBy: 'entitlements', searchQuery: 'Monthly PASS' }))).toEqual(['Bob Brown']);
    expect(names(await list({ searchBy: 'paidEntitlements', searchQuery: 'finals' }))).toEqual(['Ana Alvarez']);
    expect(names(await list({ searchBy: 'paidEntitlements', searchQuery: 'monthly' }))).toEqual([]);
    expect(names(await list({ searchBy: 'accessCode', searchQuery: 'BOB-CODE' }))).toEqual(['Bob Brown']);
    expect(names(await list({ searchBy: 'receiptNumber', searchQuery: receiptNumber }))).toEqual(['Ana Alvarez']);
    expect(names(await list({ searchBy: 'receiptNumber', searchQuery: 'SG-NONE-NONE' }))).toEqual([]);
  });

  it('filters by creation time and by a channel’s entitlement gate (read from the content subgraph)', async () => {
    const bobCreated = (await rest(stack, 'GET', `/account/v3/${bob.accountId}`, { headers: community.admin })).body.created;
    expect(names(await list({ filter: JSON.stringify({ timeStart: bobCreated }) }))).toEqual(['=HYPERLINK("x")', 'Bob Brown']);
    expect(names(await list({ filter: JSON.stringify({ timeEnd: bobCreated - 1 }) }))).toEqual(['Ana Alvarez']);
    const now = new Date();
    const gated = { data: { gate: { active: true, kind: 'none', gate: { subscriptions: [{ sku: 'finals' }] } } } };
    await stack.database.prisma.page.create({
      data: { id: 'c'.repeat(24), siteId: community.siteId, slug: 'finals-stage', type: 'channel', document: gated, tags: [], createdAt: now, updatedAt: now },
    });
    expect(names(await list({ filter: JSON.stringify({ channelId: 'c'.repeat(24) }) }))).toEqual(['Ana Alvarez']);
    expect((await list({ filter: JSON.stringify({ channelId: 'd'.repeat(24) }) })).status).toBe(404);
    expect((await list({ filter: 'not json' })).status).toBe(400);
  });

  it('refuses missing or bad listing parameters, and needs read access to Community', async () => {
    expect((await rest(stack, 'GET', '/community/v1/?sortBy=name&sortDirection=1', { headers: community.admin })).body.message).toMatch(
      /query\.offset is required/,
    );
    expect((await list({ sortBy: 'email' })).status).toBe(400);
    expect((await list({ searchBy: 'shoeSize', searchQuery: 'x' })).status).toBe(400);
    expect((await list({}, viewer(community, ana.jwt))).status).toBe(403);
    const reader = await community.token([{ pageId: [], scope: 'Community', write: false }]);
    expect((await list({}, viewer(community, reader))).status).toBe(200);
    expect(names(await list({}, other.admin))).not.toContain('Ana Alvarez');
  });

  it('shows one account: tickets (one-time) and subscriptions (recurring) with their actions', async () => {
    const reply = await rest(stack, 'GET', `/community/v1/account/?accountId=${ana.accountId}`, { headers: community.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.accountItem).toMatchObject({ accountId: ana.accountId, name: 'Ana Alvarez' });
    expect(reply.body.subscriptions).toEqual([]);
    expect(reply.body.tickets).toEqual([
      {
        id: expect.any(String),
        accessCode: null,
        actions: { canCancel: true, canRefund: true, canRemove: true },
        currentPeriodEnd: null,
        date: expect.any(Number),
        dateCanceled: null,
        dateRefunded: null,
        formattedPrice: '$26.00',
        grantedMethod: 'purchase',
        methodDescription: 'Purchased with Visa •••• 4242',
        name: 'Finals ticket',
        price: { currency: 'USD', default: true, paymentPriceId: null, value: 25 },
        sku: 'finals',
        status: 'active',
        statusTooltip: 'Active',
        wasRefunded: false,
      },
    ]);
    const bobs = await rest(stack, 'GET', `/community/v1/account/?accountId=${bob.accountId}`, { headers: community.admin });
    expect(bobs.body.tickets).toEqual([]);
    expect(bobs.body.subscriptions).toEqual([
      expect.objectContaining({
        accessCode: 'BOB-CODE',
        grantedMethod: 'accessCode',
        methodDescription: 'Access code BOB-CODE',
        sku: 'monthly-pass',
        currentPeriodEnd: expect.any(Number),
        formattedPrice: '$9.99',
        actions: { canCancel: true, canRefund: false, canRemove: true },
      }),
    ]);
    expect((await rest(stack, 'GET', `/community/v1/account/?accountId=${ana.accountId}`, { headers: other.admin })).status).toBe(404);
  });

  it('exports the community as a CSV the admin fetches, with formula-like cells quoted', async () => {
    const started = await rest(stack, 'GET', `/community/v1/export/?${query({ searchBy: 'accountInfo', searchQuery: 'alvarez' })}`, {
      headers: community.admin,
    });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      exportId: expect.stringMatching(/^[0-9a-f]{24}$/),
      fileName: expect.stringMatching(/^community-\d{14}\.csv$/),
      status: 'completed',
    });
    const file = await fetch(`${stack.url}/community/v1/export/${started.body.exportId}`, { headers: community.admin });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${started.body.fileName}"`);
    const lines = (await file.text()).trimEnd().split('\n');
    expect(lines[0]).toBe('accountId,name,email,marketingOptin,created,lastLogin,activeEntitlements');
    expect(lines).toHaveLength(2);
    expect(lines.find((line) => line.startsWith(ana.accountId))).toMatch(new RegExp(`^${ana.accountId},Ana Alvarez,${ana.email},true,.*,finals$`));
    const all = await rest(stack, 'GET', '/community/v1/export/', { headers: community.admin });
    const content = await (await fetch(`${stack.url}/community/v1/export/${all.body.exportId}`, { headers: community.admin })).text();
    expect(content).toContain(`"'=HYPERLINK(""x"")"`);
    expect((await fetch(`${stack.url}/community/v1/export/${all.body.exportId}`, { headers: other.admin })).status).toBe(404);
  });

  it('grants an entitlement by ID or SKU, once while it is active', async () => {
    const grant = (params: Record<string, string>, headers = community.admin) =>
      rest(stack, 'POST', `/community/v1/grant-entitlement/?${query(params)}`, { headers });
    const granted = await grant({ accountId: cleo.accountId, subscriptionId: 'finals' });
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual({ success: true, message: 'finals granted' });
    expect(await activeSkus(stack, community, cleo.jwt)).toEqual(['finals']);
    expect((await grant({ accountId: cleo.accountId, subscriptionId: 'finals' })).status).toBe(409);
    expect((await grant({ accountId: cleo.accountId, subscriptionId: 'nope' })).status).toBe(404);
    const theirs = await join(stack, other);
    expect((await grant({ accountId: theirs.accountId, subscriptionId: 'finals' })).status).toBe(404);
    const reader = await community.token([{ pageId: [], scope: 'Community', write: false }]);
    expect((await grant({ accountId: bob.accountId, subscriptionId: 'finals' }, viewer(community, reader))).status).toBe(403);
  });

  describe('entitlement actions', () => {
    const update = (params: Record<string, string | number | boolean>) =>
      rest(stack, 'PATCH', `/community/v1/update-entitlement/?${query(params)}`, { headers: community.admin });
    const ticketsOf = async (member: Member) => {
      const detail = (await rest(stack, 'GET', `/community/v1/account/?accountId=${member.accountId}`, { headers: community.admin })).body;
      return [...detail.tickets, ...detail.subscriptions];
    };

    it('cancels with a partial refund: access ends, the ledger shows the refund', async () => {
      const member = await join(stack, community);
      const { subscription } = await purchase(member, {}, community);
      const reply = await update({
        accountId: member.accountId,
        action: 'cancel',
        id: subscription._id,
        grantRefund: true,
        reason: 'requested_by_customer',
        refundAmount: 5,
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ success: true, message: 'canceled; refunded 5 USD' });
      expect(await activeSkus(stack, community, member.jwt)).toEqual([]);
      const [ticket] = await ticketsOf(member);
      expect(ticket).toMatchObject({
        status: 'canceled',
        wasRefunded: true,
        dateCanceled: expect.any(Number),
        dateRefunded: expect.any(Number),
        actions: { canCancel: false, canRefund: true, canRemove: true },
      });
      expect(ticket.statusTooltip).toMatch(/^Canceled on \d{4}-\d{2}-\d{2}; refunded \$5\.00 of \$25\.00$/);
      expect((await update({ accountId: member.accountId, action: 'cancel', id: subscription._id, grantRefund: false })).status).toBe(409);
    });

    it('schedules the cancellation of a recurring entitlement at the end of its period', async () => {
      const member = await join(stack, community);
      const { subscription } = await purchase(member, { sku: 'monthly-pass' }, community);
      const reply = await update({ accountId: member.accountId, action: 'scheduleCancel', id: subscription._id, grantRefund: false });
      expect(reply.body).toEqual({ success: true, message: expect.stringMatching(/^cancels on \d{4}-\d{2}-\d{2}$/) });
      expect(await activeSkus(stack, community, member.jwt)).toEqual(['monthly-pass']);
      const [ticket] = await ticketsOf(member);
      expect(ticket.statusTooltip).toMatch(/^Active; cancels on /);
      const once = await purchase(member, {}, community);
      const refused = await update({ accountId: member.accountId, action: 'scheduleCancel', id: once.subscription._id, grantRefund: false });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/recurring/);
    });

    it('refunds without touching access (justRefund), and removes', async () => {
      const member = await join(stack, community);
      const { subscription } = await purchase(member, {}, community);
      expect((await update({ accountId: member.accountId, action: 'justRefund', id: subscription._id, grantRefund: true, reason: 'duplicate' })).body).toEqual({
        success: true,
        message: 'refunded 25 USD',
      });
      expect(await activeSkus(stack, community, member.jwt)).toEqual(['finals']);
      const again = await update({ accountId: member.accountId, action: 'justRefund', id: subscription._id, grantRefund: true, reason: 'duplicate' });
      expect(again.body).toEqual({ success: false, message: 'this charge is already fully refunded' });
      expect((await update({ accountId: member.accountId, action: 'remove', id: subscription._id, grantRefund: false })).body).toEqual({
        success: true,
        message: 'removed',
      });
      expect(await activeSkus(stack, community, member.jwt)).toEqual([]);
      expect((await update({ accountId: member.accountId, action: 'remove', id: subscription._id, grantRefund: false })).status).toBe(409);
    });

    it('refuses inconsistent requests with 400 and changes nothing', async () => {
      const member = await join(stack, community);
      const { subscription } = await purchase(member, {}, community);
      const granted = await stack.database.prisma.subscription.findFirstOrThrow({ where: { accountId: cleo.accountId } });
      const cases: [Record<string, string | number | boolean>, RegExp][] = [
        [{ action: 'justRefund', grantRefund: false }, /grantRefund must be true for justRefund/],
        [{ action: 'cancel', grantRefund: true }, /reason is required/],
        [{ action: 'cancel', grantRefund: false, refundAmount: 3 }, /refundAmount needs grantRefund/],
        [{ action: 'pause', grantRefund: false }, /query\.action must be one of/],
        [{ action: 'cancel', grantRefund: 'yes' }, /query\.grantRefund must be true or false/],
      ];
      for (const [params, message] of cases) {
        const reply = await update({ accountId: member.accountId, id: subscription._id, ...params });
        expect(reply.status).toBe(400);
        expect(reply.body.message).toMatch(message);
      }
      const notPaid = await update({ accountId: cleo.accountId, id: granted.id, action: 'cancel', grantRefund: true, reason: 'duplicate' });
      expect(notPaid.body.message).toMatch(/grantRefund: this entitlement was not paid for/);
      const tooMuch = await update({
        accountId: member.accountId,
        id: subscription._id,
        action: 'cancel',
        grantRefund: true,
        reason: 'duplicate',
        refundAmount: 100,
      });
      expect(tooMuch.body).toMatchObject({ success: false });
      expect(await activeSkus(stack, community, member.jwt)).toEqual(['finals']);
      expect((await update({ accountId: bob.accountId, id: subscription._id, action: 'remove', grantRefund: false })).status).toBe(404);
    });
  });
});

describe('claim statuses', () => {
  const record = (questId: string, accountId: string, headers = site.admin) =>
    graphql(
      stack,
      /* GraphQL */ `mutation($input: RecordQuestClaimInput!) { recordQuestClaim(input: $input) { id status questId } }`,
      { input: { questId, accountId, productId: 'hoodie-m' } },
      headers,
    );

  it('records a claim (PENDING, once per quest and account), lets its owner and admins read it, and an admin fulfil it', async () => {
    const ana = await join(stack, site);
    const bob = await join(stack, site);
    const first = await record('quest-1', ana.accountId);
    expect(first.body.data.recordQuestClaim).toEqual({ id: expect.any(String), status: 'PENDING', questId: 'quest-1' });
    expect((await record('quest-1', ana.accountId)).body.data.recordQuestClaim.id).toBe(first.body.data.recordQuestClaim.id);
    await record('quest-2', ana.accountId);
    await record('quest-1', bob.accountId);
    const id = first.body.data.recordQuestClaim.id;

    const own = await rest(stack, 'GET', `/claimstatus/v3/${id}`, { headers: viewer(site, ana.jwt) });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      _id: id,
      questId: 'quest-1',
      productId: 'hoodie-m',
      accountId: ana.accountId,
      status: 'PENDING',
      // quest-1 is no quest of the content subgraph: it has no claimedMessage to give.
      claimedMessage: null,
      siteId: site.siteId,
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    expect((await rest(stack, 'GET', `/claimstatus/v3/${id}`, { headers: viewer(site, bob.jwt) })).status).toBe(404);
    expect((await rest(stack, 'GET', `/claimstatus/v3/${id}`, { headers: other.admin })).status).toBe(404);

    const mine = await rest(stack, 'GET', '/claimstatus/v3/', { headers: viewer(site, ana.jwt) });
    expect(mine.body.map((claim: { questId: string }) => claim.questId)).toEqual(['quest-1', 'quest-2']);
    const quest = await rest(stack, 'GET', '/claimstatus/v3/?questId=quest-1', { headers: site.admin });
    expect(quest.body.map((claim: { accountId: string }) => claim.accountId).sort()).toEqual([ana.accountId, bob.accountId].sort());

    const fulfil = await graphql(stack, /* GraphQL */ `mutation($id: ID!) { setClaimStatus(id: $id, status: FULFILLED) { status } }`, { id }, site.admin);
    expect(fulfil.body.data.setClaimStatus.status).toBe('FULFILLED');
    expect(
      errorCode(
        await graphql(stack, /* GraphQL */ `mutation($id: ID!) { setClaimStatus(id: $id, status: FULFILLED) { status } }`, { id }, viewer(site, ana.jwt)),
      ),
    ).toBe('FORBIDDEN');
  });

  it('joins the claims onto the quest entity', async () => {
    const ana = await join(stack, site);
    const { body } = await record('quest-9', ana.accountId);
    const reply = await graphql(
      stack,
      /* GraphQL */ `query($id: ID!) { claimStatus(id: $id) { quest { id claimStatuses { accountId status } } } }`,
      { id: body.data.recordQuestClaim.id },
      site.admin,
    );
    expect(reply.body.data.claimStatus.quest).toEqual({ id: 'quest-9', claimStatuses: [{ accountId: ana.accountId, status: 'PENDING' }] });
  });

  it('refuses a claim for another site’s account and without the ClaimStatuses permission', async () => {
    const theirs = await join(stack, other);
    expect(errorCode(await record('quest-1', theirs.accountId))).toBe('NOT_FOUND');
    const member = await join(stack, site);
    expect(errorCode(await record('quest-1', member.accountId, viewer(site, member.jwt)))).toBe('FORBIDDEN');
  });
});

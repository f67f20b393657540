/**
 * Access codes over the documented REST paths: create, get, delete, redeem once (granting the
 * entitlement), bulk as JSON and CSV (unique, one transaction, up to 100,000), and TV codes.
 */
import jwt from 'jsonwebtoken';
import type { Stack } from '../../stack';
import { activeSkus, createSku, join, viewer } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  await createSku(stack, site, 'finals');
  await createSku(stack, other, 'finals');
});
afterAll(stopAll);

const createCode = (who: TestSite, params: Record<string, string>, headers = who.admin) =>
  rest(stack, 'POST', `/accesscode/v1/?${new URLSearchParams({ siteId: who.siteId, sku: 'finals', type: 'subscription', ...params }).toString()}`, { headers });

describe('single access codes', () => {
  it('creates, gets and deletes a code; another site’s is 404', async () => {
    const created = await createCode(site, { accessCode: 'VIP-2024' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      accessCode: 'VIP-2024',
      siteId: site.siteId,
      sku: 'finals',
      type: 'subscription',
      consumed: false,
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    const got = await rest(stack, 'GET', `/accesscode/v1/${created.body._id}`, { headers: site.admin });
    expect(got.body).toEqual(created.body);
    expect((await rest(stack, 'GET', `/accesscode/v1/${created.body._id}`, { headers: other.admin })).status).toBe(404);
    expect((await rest(stack, 'DELETE', `/accesscode/v1/${created.body._id}`, { headers: other.admin })).status).toBe(404);

    const writer = await site.token([{ pageId: [], scope: 'AccessCodes', write: true }]);
    const deleted = await rest(stack, 'DELETE', `/accesscode/v1/${created.body._id}`, { headers: viewer(site, writer) });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: expect.stringContaining('VIP-2024') });
    expect((await rest(stack, 'GET', `/accesscode/v1/${created.body._id}`, { headers: site.admin })).status).toBe(404);
  });

  it.each([
    ['a code that exists', { accessCode: 'TAKEN-1' }, 409, /already exists/],
    ['an unknown SKU', { accessCode: 'NEW-1', sku: 'nope' }, 400, /sku: no entitlement/],
    ['another site’s siteId', { accessCode: 'NEW-2', siteId: 'elsewhere' }, 400, /siteId/],
    ['an unknown type', { accessCode: 'NEW-3', type: 'forever' }, 400, /query\.type must be one of/],
    ['a malformed code', { accessCode: 'no spaces allowed' }, 400, /accessCode must be/],
  ])('refuses %s', async (_label, params, status, message) => {
    await createCode(site, { accessCode: 'TAKEN-1' });
    const before = await stack.database.prisma.accessCode.count({ where: { siteId: site.siteId } });
    const reply = await createCode(site, params);
    expect(reply.status).toBe(status);
    expect(reply.body.message).toMatch(message);
    expect(await stack.database.prisma.accessCode.count({ where: { siteId: site.siteId } })).toBe(before);
  });

  it('needs write access to AccessCodes for a signed-in account', async () => {
    const reader = await site.token([{ pageId: [], scope: 'AccessCodes', write: false }]);
    expect((await createCode(site, { accessCode: 'READER-1' }, viewer(site, reader))).status).toBe(403);
    expect((await rest(stack, 'POST', '/accesscode/v1/bulk', { headers: viewer(site, reader), body: { qty: 1, sku: 'finals' } })).status).toBe(403);
  });
});

describe('redeeming a code', () => {
  it('grants a subscription code’s entitlement once; a second redemption does not succeed', async () => {
    await createCode(site, { accessCode: 'ONCE-ONLY' });
    const ana = await join(stack, site);
    const bob = await join(stack, site);
    const first = await rest(stack, 'GET', '/accesscode/v1/consume/ONCE-ONLY', { headers: viewer(site, ana.jwt) });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, message: expect.stringContaining('finals') });
    expect(await activeSkus(stack, site, ana.jwt)).toEqual(['finals']);
    const held = await rest(stack, 'GET', `/account/v3/${ana.accountId}`, { headers: viewer(site, ana.jwt) });
    expect(held.body.subscriptions).toEqual([
      expect.objectContaining({
        grantedMethod: 'accessCode',
        status: 'active',
        accountId: ana.accountId,
        entitlement: expect.objectContaining({ sku: 'finals' }),
      }),
    ]);

    for (const member of [ana, bob]) {
      const again = await rest(stack, 'GET', '/accesscode/v1/consume/ONCE-ONLY', { headers: viewer(site, member.jwt) });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ success: false, message: 'this access code was already used' });
    }
    expect(await activeSkus(stack, site, bob.jwt)).toEqual([]);
    const code = await stack.database.prisma.accessCode.findFirstOrThrow({ where: { siteId: site.siteId, accessCode: 'ONCE-ONLY' } });
    expect(code.consumedByAccountId).toBe(ana.accountId);
  });

  it('redeems exactly once under concurrent redemptions', async () => {
    await createCode(site, { accessCode: 'RACE-1' });
    const members = await Promise.all([1, 2, 3, 4, 5].map(() => join(stack, site)));
    const replies = await Promise.all(members.map((member) => rest(stack, 'GET', '/accesscode/v1/consume/RACE-1', { headers: viewer(site, member.jwt) })));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const granted = await stack.database.prisma.subscription.count({
      where: { siteId: site.siteId, grantedMethod: 'accessCode', accountId: { in: members.map((member) => member.accountId) } },
    });
    expect(granted).toBe(1);
  });

  it('answers 404 for an unknown code and another site’s code; redemption needs a signed-in account', async () => {
    await createCode(other, { accessCode: 'THEIRS-1' });
    const member = await join(stack, site);
    expect((await rest(stack, 'GET', '/accesscode/v1/consume/NO-SUCH-CODE', { headers: viewer(site, member.jwt) })).status).toBe(404);
    expect((await rest(stack, 'GET', '/accesscode/v1/consume/THEIRS-1', { headers: viewer(site, member.jwt) })).status).toBe(404);
    expect((await rest(stack, 'GET', '/accesscode/v1/consume/THEIRS-1', { headers: site.admin })).status).toBe(401);
    const theirs = await stack.database.prisma.accessCode.findFirstOrThrow({ where: { siteId: other.siteId, accessCode: 'THEIRS-1' } });
    expect(theirs.consumedAt).toBeNull();
  });
});

describe('bulk access codes', () => {
  it('creates qty unique codes as JSON, stored together', async () => {
    const reply = await rest(stack, 'POST', '/accesscode/v1/bulk', { headers: site.admin, body: { qty: 1000, sku: 'finals' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toHaveLength(1000);
    expect(reply.body[0]).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      accessCode: expect.stringMatching(/^[2-9A-HJ-NP-Z]{12}$/),
      siteId: site.siteId,
      sku: 'finals',
      type: 'subscription',
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    expect(new Set(reply.body.map((code: { accessCode: string }) => code.accessCode)).size).toBe(1000);
    const stored = await stack.database.prisma.accessCode.findMany({ where: { id: { in: reply.body.map((code: { _id: string }) => code._id) } } });
    expect(stored).toHaveLength(1000);
    expect(new Set(stored.map((code) => code.batchId)).size).toBe(1);

    const member = await join(stack, site);
    const redeemed = await rest(stack, 'GET', `/accesscode/v1/consume/${reply.body[0].accessCode}`, { headers: viewer(site, member.jwt) });
    expect(redeemed.status).toBe(200);
    expect(await activeSkus(stack, site, member.jwt)).toEqual(['finals']);
  });

  it('creates them as a CSV file with a header line', async () => {
    const response = await fetch(`${stack.url}/accesscode/v1/bulk?kind=csv`, {
      method: 'POST',
      headers: { ...site.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ qty: 500, sku: 'finals' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="access-codes-finals-[0-9a-f]{24}\.csv"$/);
    // Codes, IDs and SKUs hold no commas or quotes: lines split plainly.
    const [header, ...lines] = (await response.text()).trimEnd().split('\n');
    expect(header).toBe('_id,accessCode,sku,type,created');
    const rows = lines.map((line) => Object.fromEntries(line.split(',').map((value, index) => [header.split(',')[index], value])));
    expect(rows).toHaveLength(500);
    expect(new Set(rows.map((row) => row.accessCode)).size).toBe(500);
    expect(await stack.database.prisma.accessCode.count({ where: { id: { in: rows.map((row) => row._id) }, siteId: site.siteId } })).toBe(500);
  });

  it('creates 100,000 unique codes in one request', async () => {
    const site100k = await createTestSite(stack, 'Bulk');
    await createSku(stack, site100k, 'season');
    const reply = await rest(stack, 'POST', '/accesscode/v1/bulk', { headers: site100k.admin, body: { qty: 100000, sku: 'season' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(100000);
    expect(new Set(reply.body.map((code: { accessCode: string }) => code.accessCode)).size).toBe(100000);
    expect(await stack.database.prisma.accessCode.count({ where: { siteId: site100k.siteId } })).toBe(100000);
  }, 60_000);

  it.each([
    ['qty 0', { qty: 0, sku: 'finals' }, '', /body\.qty must be >= 1/],
    ['qty above 100,000', { qty: 100001, sku: 'finals' }, '', /body\.qty must be <= 100000/],
    ['a fractional qty', { qty: 1.5, sku: 'finals' }, '', /body\.qty must be integer/],
    ['an unknown SKU', { qty: 5, sku: 'nope' }, '', /sku: no entitlement/],
    ['an unknown kind', { qty: 5, sku: 'finals' }, '?kind=xml', /query\.kind must be one of json, csv/],
    ['a missing sku', { qty: 5 }, '', /body\.sku is required/],
  ])('refuses %s with 400 and writes nothing', async (_label, body, suffix, message) => {
    const before = await stack.database.prisma.accessCode.count({ where: { siteId: site.siteId } });
    const reply = await rest(stack, 'POST', `/accesscode/v1/bulk${suffix}`, { headers: site.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
    expect(await stack.database.prisma.accessCode.count({ where: { siteId: site.siteId } })).toBe(before);
  });
});

describe('TV codes', () => {
  it('a TV gets a short code, a signed-in viewer activates it, the TV claims its session once', async () => {
    const generated = await rest(stack, 'POST', '/accesscode/v1/tv', { headers: viewer(site), body: { deviceId: 'living-room-tv' } });
    expect(generated.status).toBe(201);
    expect(generated.body).toEqual({
      code: expect.stringMatching(/^[2-9A-HJ-NP-Z]{6}$/),
      expiresAt: expect.any(Number),
      deviceToken: expect.stringMatching(/^sgd_/),
    });
    expect(generated.body.expiresAt).toBeGreaterThan(Date.now() + 9 * 60_000);
    const { code, deviceToken } = generated.body;
    const claim = () => rest(stack, 'POST', '/accesscode/v1/tv/session', { headers: viewer(site), body: { deviceToken } });

    expect((await claim()).body).toEqual({ activated: false, session: null });
    const member = await join(stack, site);
    const typed = `${code.slice(0, 3).toLowerCase()}-${code.slice(3)}`;
    const activated = await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: viewer(site, member.jwt), body: { code: typed } });
    expect(activated.status).toBe(200);
    expect(activated.body.success).toBe(true);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: viewer(site, member.jwt), body: { code } })).status).toBe(409);

    const claimed = await claim();
    expect(claimed.status).toBe(200);
    expect(claimed.body.activated).toBe(true);
    expect((jwt.decode(claimed.body.session.jwt) as jwt.JwtPayload).sub).toBe(member.accountId);
    expect((await rest(stack, 'GET', `/account/v3/${member.accountId}`, { headers: viewer(site, claimed.body.session.jwt) })).status).toBe(200);
    expect((await claim()).status).toBe(409);
  });

  it('refuses a made-up device token, another site, an unknown or expired code', async () => {
    const { body } = await rest(stack, 'POST', '/accesscode/v1/tv', { headers: viewer(site), body: { deviceId: 'tv-2' } });
    const member = await join(stack, site);
    const theirs = await join(stack, other);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/session', { headers: viewer(site), body: { deviceToken: 'sgd_made-up' } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/session', { headers: viewer(other), body: { deviceToken: body.deviceToken } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: viewer(other, theirs.jwt), body: { code: body.code } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: viewer(site, member.jwt), body: { code: 'ZZZZZZ' } })).status).toBe(404);
    await stack.database.prisma.tvCode.updateMany({ where: { siteId: site.siteId, code: body.code }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: viewer(site, member.jwt), body: { code: body.code } })).status).toBe(404);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv/activate', { headers: site.admin, body: { code: body.code } })).status).toBe(401);
  });

  it('rate-limits codes per device with 429', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 21; attempt += 1) {
      statuses.push((await rest(stack, 'POST', '/accesscode/v1/tv', { headers: viewer(site), body: { deviceId: 'busy-tv' } })).status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(statuses[20]).toBe(429);
    expect((await rest(stack, 'POST', '/accesscode/v1/tv', { headers: viewer(site), body: { deviceId: 'calm-tv' } })).status).toBe(201);
  });
});

describe('login codes (type login)', () => {
  const signInWith = (accessCode: string, device: string | null, who: TestSite = site) =>
    rest(stack, 'POST', '/auth/v2/access-code', {
      headers: { 'x-service-client-id': who.siteId, ...(device ? { 'x-service-device-id': device } : {}) },
      body: { accessCode },
    });
  const checkOn = (pageId: string, jwtToken: string, device: string) =>
    rest(stack, 'GET', `/pages/v2/content/id/${pageId}`, {
      headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${jwtToken}`, 'x-service-device-id': device },
    });

  it('signs the holder in as the code’s guest account, made on first use with the code’s SKU; the device limit applies', async () => {
    expect((await createCode(site, { accessCode: 'GUEST-1', type: 'login' })).status).toBe(200);
    const first = await signInWith('GUEST-1', 'tv');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ jwt: expect.any(String), refreshToken: expect.any(String), service: expect.any(String) });
    const accountOf = (token: string) => (jwt.decode(token) as { sub: string }).sub;
    expect(await activeSkus(stack, site, first.body.jwt)).toEqual(['finals']);

    // Every later use is the same account, granted once.
    const again = await signInWith('GUEST-1', 'phone');
    expect(accountOf(again.body.jwt)).toBe(accountOf(first.body.jwt));
    expect(await stack.database.prisma.subscription.count({ where: { accountId: accountOf(first.body.jwt) } })).toBe(1);
    const code = await stack.database.prisma.accessCode.findFirstOrThrow({ where: { siteId: site.siteId, accessCode: 'GUEST-1' } });
    expect(code.consumedByAccountId).toBe(accountOf(first.body.jwt));

    // The site's device limit counts the guest's devices as any account's.
    await graphql(stack, /* GraphQL */ `mutation { updateSite(input: { deviceLimit: 1 }) { deviceLimit } }`, {}, site.admin);
    try {
      const page = await rest(stack, 'POST', '/pages/v3', { headers: site.admin, body: { slug: 'door-show', type: 'channel', data: { name: 'Door show' } } });
      expect((await checkOn(page.body._id, first.body.jwt, 'tv')).body.canIPlayResponse.contentCheck.access).toBe('full');
      const second = await checkOn(page.body._id, again.body.jwt, 'phone');
      expect(second.body.canIPlayResponse).toMatchObject({ contentCheck: { access: 'none' }, error: { type: 'device_limit' } });
    } finally {
      await graphql(stack, /* GraphQL */ `mutation { updateSite(input: { deviceLimit: 0 }) { deviceLimit } }`, {}, site.admin);
    }
  });

  it('answers 401 for an unknown code, another site’s or a subscription code, 400 without a device, and is no code to redeem', async () => {
    const guests = () => stack.database.prisma.account.count({ where: { siteId: site.siteId, email: { endsWith: '@access-code.invalid' } } });
    const guestsBefore = await guests();
    expect((await createCode(site, { accessCode: 'GUEST-2', type: 'login' })).status).toBe(200);
    expect((await createCode(site, { accessCode: 'PAID-2' })).status).toBe(200);
    for (const [code, who] of [
      ['NOPE-9', site],
      ['GUEST-2', other],
      ['PAID-2', site],
    ] as const) {
      const reply = await signInWith(code, 'laptop', who);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ success: false, message: expect.any(String) });
    }
    expect((await signInWith('GUEST-2', null)).status).toBe(400);
    const member = await join(stack, site);
    const redeemed = await rest(stack, 'GET', '/accesscode/v1/consume/GUEST-2', { headers: viewer(site, member.jwt) });
    expect(redeemed.status).toBe(400);
    expect(redeemed.body.message).toContain('/auth/v2/access-code');
    expect(await activeSkus(stack, site, member.jwt)).toEqual([]);
    expect(await guests()).toBe(guestsBefore);
  });
});

/**
 * Accounts and authentication over the documented REST paths: sign-up, sign-in, rotating refresh
 * tokens, login intents, reads / updates / deletion / listing, roles and what they allow, password
 * change and reset over a real SMTP server, global accounts. Every error and tenancy case.
 */
import jwt from 'jsonwebtoken';
import type { Stack } from '../../stack';
import { provisionSite } from '../../subgraphs/community/sites';
import { join, PASSWORD, viewer, type Member } from '../helpers/community';
import { waitingMail } from '../../subgraphs/community/mail';
import { graphql, rest } from '../helpers/http';
import { startFakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { createTestSite, startTestStack, stopAll, TEST_SECRETS, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  stack = await startTestStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Stagegraph <no-reply@stagegraph.test>' } });
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
});
afterAll(async () => {
  await stopAll();
  await smtp.close();
});

const bearer = (who: TestSite, token: string) => viewer(who, token);
const signIn = (who: TestSite, email: string, password = PASSWORD, extra: object = {}) =>
  rest(stack, 'POST', '/auth/v2/login', { headers: viewer(who), body: { email, password, ...extra } });

describe('sign-up', () => {
  it('creates an account (201) in the seed shape, without any password or hash', async () => {
    const reply = await rest(stack, 'POST', '/account/v3/', {
      headers: viewer(site),
      body: { email: 'Ana.Lopez@Example.test', password: PASSWORD, name: 'Ána López', marketingOptin: true },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      siteId: site.siteId,
      globalAccountID: null,
      uid: reply.body._id,
      email: 'ana.lopez@example.test',
      name: 'Ána López',
      normalizedName: 'ana lopez',
      marketingOptin: true,
      lastLogin: null,
      thirdPartyAuthProviders: [],
      roles: [],
      subscriptions: [],
      created: expect.any(Number),
      modified: expect.any(Number),
      tags: [],
    });
    expect(JSON.stringify(reply.body)).not.toContain(PASSWORD);
    const stored = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: reply.body._id } });
    expect(stored.passwordHash).toMatch(/^scrypt\$/);
  });

  it('accepts the JSON body sent as text/plain', async () => {
    const reply = await rest(stack, 'POST', '/account/v3/', {
      headers: viewer(site),
      rawBody: JSON.stringify({ email: 'plain@example.test', password: PASSWORD, name: 'Plain' }),
      contentType: 'text/plain',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.email).toBe('plain@example.test');
  });

  it('refuses a second account with the same e-mail (any case) with 409, on the same site only', async () => {
    await join(stack, site, { email: 'twice@example.test' });
    const again = await rest(stack, 'POST', '/account/v3/', {
      headers: viewer(site),
      body: { email: 'TWICE@example.test', password: PASSWORD, name: 'Again' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, message: expect.stringContaining('already exists') });
    const elsewhere = await rest(stack, 'POST', '/account/v3/', {
      headers: viewer(other),
      body: { email: 'twice@example.test', password: PASSWORD, name: 'Elsewhere' },
    });
    expect(elsewhere.status).toBe(201);
  });

  it.each([
    ['a missing password', { email: 'x1@example.test', name: 'X' }, /body\.password is required/],
    ['a short password', { email: 'x2@example.test', name: 'X', password: 'short' }, /password must be at least 8/],
    ['an invalid e-mail', { email: 'not-an-email', name: 'X', password: PASSWORD }, /email must be an e-mail/],
    ['an empty name', { email: 'x3@example.test', name: '  ', password: PASSWORD }, /name must not be empty/],
    ['an unknown field', { email: 'x4@example.test', name: 'X', password: PASSWORD, admin: true }, /body\.admin is not allowed/],
    ['another site’s siteId', { email: 'x5@example.test', name: 'X', password: PASSWORD, siteId: 'elsewhere' }, /siteId/],
  ])('refuses %s with 400 naming the field, and writes nothing', async (_label, body, message) => {
    const reply = await rest(stack, 'POST', '/account/v3/', { headers: viewer(site), body });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
    const email = (body as { email: string }).email;
    expect(await stack.database.prisma.account.count({ where: { siteId: site.siteId, email } })).toBe(0);
  });
});

describe('sign-in and sessions', () => {
  let member: Member;
  beforeAll(async () => {
    member = await join(stack, site);
  });

  it('answers {jwt, refreshToken, service}; the JWT reads the account and sign-in sets lastLogin', async () => {
    const reply = await signIn(site, member.email, PASSWORD, { siteId: site.siteId });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['jwt', 'refreshToken', 'service']);
    expect(reply.body.service).toBe('stagegraph');
    const claims = jwt.decode(reply.body.jwt) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: member.accountId, site: site.siteId, roles: [], iss: 'stagegraph' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(stack.config.jwtTtlSeconds);
    const me = await rest(stack, 'GET', `/account/v3/${member.accountId}`, { headers: bearer(site, reply.body.jwt) });
    expect(me.status).toBe(200);
    expect(me.body.lastLogin).toEqual(expect.any(Number));
  });

  it('answers 401 alike for a wrong password, an unknown e-mail and another site’s account', async () => {
    const wrong = await signIn(site, member.email, 'wrong password!');
    const unknown = await signIn(site, 'nobody@example.test');
    const theirs = await join(stack, other);
    const crossed = await signIn(site, theirs.email);
    for (const reply of [wrong, unknown, crossed]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ success: false, message: 'wrong email or password' });
    }
  });

  it('refuses a body siteId that is not the site of the header', async () => {
    const reply = await signIn(site, member.email, PASSWORD, { siteId: other.siteId });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/siteId/);
  });

  it('rotates refresh tokens; a refresh token used twice ends the whole session', async () => {
    const first = await signIn(site, member.email);
    const refreshed = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: first.body.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshToken).not.toBe(first.body.refreshToken);
    expect((await rest(stack, 'GET', `/account/v3/${member.accountId}`, { headers: bearer(site, refreshed.body.jwt) })).status).toBe(200);

    const replay = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: first.body.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toMatch(/already used/);
    const next = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: refreshed.body.refreshToken } });
    expect(next.status).toBe(401);
    expect(next.body.message).toMatch(/session has ended/);
  });

  it('refuses an unknown, expired or other site’s refresh token, and ends a session on logout', async () => {
    const session = await signIn(site, member.email);
    const elsewhere = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(other), body: { refreshToken: session.body.refreshToken } });
    expect(elsewhere.status).toBe(401);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: 'sgr_made-up' } })).status).toBe(401);

    const expiring = await signIn(site, member.email);
    await stack.database.prisma.refreshToken.updateMany({
      where: { accountId: member.accountId, usedAt: null, revokedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: expiring.body.refreshToken } });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);

    const live = await signIn(site, member.email);
    expect((await rest(stack, 'POST', '/auth/v2/logout', { headers: viewer(site), body: { refreshToken: live.body.refreshToken } })).status).toBe(200);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: live.body.refreshToken } })).status).toBe(401);
  });

  it('refuses a JWT on another site, a tampered one, an expired one and one signed with another key', async () => {
    const session = await signIn(site, member.email);
    const path = `/account/v3/${member.accountId}`;
    expect((await rest(stack, 'GET', path, { headers: bearer(other, session.body.jwt) })).status).toBe(401);

    const [header, , signature] = session.body.jwt.split('.');
    const raised = Buffer.from(JSON.stringify({ ...(jwt.decode(session.body.jwt) as object), roles: [{ pageId: [], scope: '*', write: true }] })).toString(
      'base64url',
    );
    const tampered = await rest(stack, 'GET', '/account/v3', { headers: bearer(site, `${header}.${raised}.${signature}`) });
    expect(tampered.status).toBe(401);

    const claims = { site: site.siteId, roles: [] };
    const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, TEST_SECRETS.JWT_SECRET, {
      algorithm: 'HS256',
      subject: member.accountId,
      issuer: 'stagegraph',
    });
    const foreign = jwt.sign(claims, 'another-secret-of-at-least-32-characters!!', {
      algorithm: 'HS256',
      subject: member.accountId,
      issuer: 'stagegraph',
      expiresIn: 600,
    });
    // Signed with the right key, but roles the access checks cannot read: refused, never a 500.
    const misshapen = [
      ['Overlays'],
      [{ scope: 7, write: true, pageId: [] }],
      [{ scope: 'Overlays', write: 'yes', pageId: [] }],
      [{ scope: 'Overlays', write: true, pageId: 'all' }],
      'admin',
    ].map((roles) =>
      jwt.sign({ site: site.siteId, roles }, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS256', subject: member.accountId, issuer: 'stagegraph', expiresIn: 600 }),
    );
    for (const token of [expired, foreign, ...misshapen]) {
      const reply = await rest(stack, 'GET', path, { headers: bearer(site, token) });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/invalid or expired token/);
    }
  });

  it('rate-limits failed sign-ins per e-mail with 429 and Retry-After, even for the right password then', async () => {
    const target = await join(stack, site);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) statuses.push((await signIn(site, target.email, 'not the password')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    const locked = await signIn(site, target.email);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(other, target.email)).status).toBe(401);
  });
});

describe('login intents', () => {
  it('hands a session over once, and remembers the third-party identity on the account', async () => {
    const member = await join(stack, site);
    const intent = await rest(stack, 'POST', '/auth/v2/intent', {
      headers: viewer(site),
      body: { jwt: member.jwt, name: 'Ana', provider: 'twitch', service: 'arena-tv', thirdPartyAccountId: 'tw-42' },
    });
    expect(intent.status).toBe(200);
    expect(intent.body).toEqual({
      authenticated: true,
      jwt: member.jwt,
      service: 'arena-tv',
      siteId: site.siteId,
      token: expect.stringMatching(/^sgl_/),
      name: 'Ana',
      thirdPartyAccountId: 'tw-42',
      expiresAt: expect.any(Number),
    });
    const consumed = await rest(stack, 'GET', `/auth/v2/intent/consume/${intent.body.token}`, { headers: viewer(site) });
    expect(consumed.status).toBe(200);
    expect(consumed.body).toEqual({ jwt: expect.any(String), refreshToken: expect.stringMatching(/^sgr_/), service: 'arena-tv' });
    expect((jwt.decode(consumed.body.jwt) as jwt.JwtPayload).sub).toBe(member.accountId);
    const again = await rest(stack, 'GET', `/auth/v2/intent/consume/${intent.body.token}`, { headers: viewer(site) });
    expect(again.status).toBe(409);
    const account = await rest(stack, 'GET', `/account/v3/${member.accountId}`, { headers: bearer(site, member.jwt) });
    expect(account.body.thirdPartyAuthProviders).toEqual([{ accountId: 'tw-42', provider: 'twitch' }]);
  });

  it('refuses an invalid or other site’s JWT, an unknown token, and another site’s intent', async () => {
    const member = await join(stack, site);
    const body = { name: 'Ana', provider: 'twitch', service: 'arena-tv', thirdPartyAccountId: 'tw-1' };
    expect((await rest(stack, 'POST', '/auth/v2/intent', { headers: viewer(site), body: { ...body, jwt: 'a.b.c' } })).status).toBe(401);
    expect((await rest(stack, 'POST', '/auth/v2/intent', { headers: viewer(other), body: { ...body, jwt: member.jwt } })).status).toBe(401);
    expect((await rest(stack, 'GET', '/auth/v2/intent/consume/sgl_unknown', { headers: viewer(site) })).status).toBe(404);
    const intent = await rest(stack, 'POST', '/auth/v2/intent', { headers: viewer(site), body: { ...body, jwt: member.jwt } });
    expect((await rest(stack, 'GET', `/auth/v2/intent/consume/${intent.body.token}`, { headers: viewer(other) })).status).toBe(404);
    await stack.database.prisma.loginIntent.updateMany({ where: { accountId: member.accountId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await rest(stack, 'GET', `/auth/v2/intent/consume/${intent.body.token}`, { headers: viewer(site) })).status).toBe(401);
  });
});

describe('reading, updating and deleting accounts', () => {
  it('lets an account read itself; another account needs read access to Accounts; another site’s is 404', async () => {
    const ana = await join(stack, site);
    const bob = await join(stack, site);
    const reader = await site.token([{ pageId: [], scope: 'Accounts', write: false }]);
    expect((await rest(stack, 'GET', `/account/v3/${ana.accountId}`, { headers: bearer(site, ana.jwt) })).status).toBe(200);
    expect((await rest(stack, 'GET', `/account/v3/${bob.accountId}`, { headers: bearer(site, ana.jwt) })).status).toBe(403);
    expect((await rest(stack, 'GET', `/account/v3/${bob.accountId}`, { headers: bearer(site, reader) })).status).toBe(200);
    expect((await rest(stack, 'GET', `/account/v3/${bob.accountId}`, { headers: site.admin })).status).toBe(200);
    const theirs = await join(stack, other);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await rest(stack, method, `/account/v3/${theirs.accountId}`, {
        headers: site.admin,
        body: method === 'PUT' ? { name: 'Stolen' } : undefined,
      });
      expect(reply.status).toBe(404);
    }
    expect((await rest(stack, 'GET', `/account/v3/${theirs.accountId}`, { headers: other.admin })).body.name).not.toBe('Stolen');
  });

  it('updates the signed-in account (PUT /account/v3/), refusing a taken e-mail, its own password and its own roles', async () => {
    const ana = await join(stack, site);
    const taken = await join(stack, site);
    const updated = await rest(stack, 'PUT', '/account/v3/', {
      headers: bearer(site, ana.jwt),
      body: { name: 'Ana Maria', marketingOptin: true, email: `new-${ana.email}` },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ _id: ana.accountId, name: 'Ana Maria', normalizedName: 'ana maria', marketingOptin: true, email: `new-${ana.email}` });
    expect((await rest(stack, 'PUT', '/account/v3/', { headers: bearer(site, ana.jwt), body: { email: taken.email } })).status).toBe(409);
    const password = await rest(stack, 'PUT', '/account/v3/', { headers: bearer(site, ana.jwt), body: { password: 'another password' } });
    expect(password.status).toBe(403);
    expect(password.body.message).toMatch(/password/);
    expect((await rest(stack, 'PUT', '/account/v3/', { headers: bearer(site, ana.jwt), body: { roles: [{ scope: '*', write: true }] } })).status).toBe(403);
    expect((await signIn(site, `new-${ana.email}`)).status).toBe(200);
  });

  it('lets an admin set another account’s password and fields; a non-admin gets 403', async () => {
    const ana = await join(stack, site);
    const bob = await join(stack, site);
    expect((await rest(stack, 'PUT', `/account/v3/${bob.accountId}`, { headers: bearer(site, ana.jwt), body: { name: 'Hacked' } })).status).toBe(403);
    const reply = await rest(stack, 'PUT', `/account/v3/${bob.accountId}`, { headers: site.admin, body: { password: 'set by the admin', tags: ['vip'] } });
    expect(reply.status).toBe(200);
    expect(reply.body.tags).toEqual(['vip']);
    expect((await signIn(site, bob.email)).status).toBe(401);
    expect((await signIn(site, bob.email, 'set by the admin')).status).toBe(200);
    // The old session was cut off with the old password.
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: bob.refreshToken } })).status).toBe(401);
  });

  it('deletes an account (itself or by an admin) with its sessions', async () => {
    const ana = await join(stack, site);
    const bob = await join(stack, site);
    expect((await rest(stack, 'DELETE', `/account/v3/${bob.accountId}`, { headers: bearer(site, ana.jwt) })).status).toBe(403);
    const gone = await rest(stack, 'DELETE', `/account/v3/${ana.accountId}`, { headers: bearer(site, ana.jwt) });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true, message: expect.any(String) });
    expect((await signIn(site, ana.email)).status).toBe(401);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: ana.refreshToken } })).status).toBe(401);
    expect((await rest(stack, 'DELETE', `/account/v3/${bob.accountId}`, { headers: site.admin })).status).toBe(200);
    expect((await rest(stack, 'GET', `/account/v3/${bob.accountId}`, { headers: site.admin })).status).toBe(404);
  });
});

describe('listing accounts', () => {
  let listed: TestSite;
  beforeAll(async () => {
    listed = await createTestSite(stack, 'Listing');
    for (let index = 0; index < 55; index += 1) {
      const name = `Fan ${String(index).padStart(2, '0')}`;
      await rest(stack, 'POST', '/account/v3/', {
        headers: viewer(listed),
        body: { email: `fan${index}@example.test`, password: PASSWORD, name, marketingOptin: index % 5 === 0 },
      });
    }
    await rest(stack, 'POST', '/account/v3/', { headers: viewer(listed), body: { email: 'zoe@example.test', password: PASSWORD, name: 'Zoë Quinn' } });
  });

  it('pages by 50 by default with pagination.totalCount, and offset / limit', async () => {
    const first = await rest(stack, 'GET', '/account/v3', { headers: listed.admin });
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(50);
    expect(first.body.pagination).toEqual({ limit: 50, offset: 0, searchFields: [], sortBy: 'created', sortDirection: 1, totalCount: 56 });
    const rest2 = await rest(stack, 'GET', '/account/v3?offset=50&limit=50', { headers: listed.admin });
    expect(rest2.body.results).toHaveLength(6);
    const ids = new Set([...first.body.results, ...rest2.body.results].map((account: { _id: string }) => account._id));
    expect(ids.size).toBe(56);
  });

  it('sorts by name ascending (1) and descending (2)', async () => {
    const ascending = await rest(stack, 'GET', '/account/v3?sortBy=name&sortDirection=1&limit=3', { headers: listed.admin });
    expect(ascending.body.results.map((account: { name: string }) => account.name)).toEqual(['Fan 00', 'Fan 01', 'Fan 02']);
    const descending = await rest(stack, 'GET', '/account/v3?sortBy=name&sortDirection=2&limit=2', { headers: listed.admin });
    expect(descending.body.results.map((account: { name: string }) => account.name)).toEqual(['Zoë Quinn', 'Fan 54']);
  });

  it('searches free text (accents and case do not matter) and field=value filters', async () => {
    const text = await rest(stack, 'GET', `/account/v3?search=${encodeURIComponent('zoe')}`, { headers: listed.admin });
    expect(text.body.results.map((account: { email: string }) => account.email)).toEqual(['zoe@example.test']);
    expect(text.body.pagination.searchFields).toEqual(['name', 'email']);
    const optedIn = await rest(stack, 'GET', `/account/v3?search=${encodeURIComponent('marketingOptin=true')}`, { headers: listed.admin });
    expect(optedIn.body.pagination.totalCount).toBe(11);
    expect(optedIn.body.results.every((account: { marketingOptin: boolean }) => account.marketingOptin)).toBe(true);
    const unknown = await rest(stack, 'GET', `/account/v3?search=${encodeURIComponent('passwordHash=x')}`, { headers: listed.admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/search: passwordHash cannot be searched/);
  });

  it('needs read access to Accounts, lists only the caller’s site, and refuses bad paging', async () => {
    const member = await join(stack, listed);
    expect((await rest(stack, 'GET', '/account/v3', { headers: bearer(listed, member.jwt) })).status).toBe(403);
    const mine = await rest(stack, 'GET', '/account/v3?limit=500', { headers: site.admin });
    expect(mine.body.results.every((account: { siteId: string }) => account.siteId === site.siteId)).toBe(true);
    expect((await rest(stack, 'GET', '/account/v3?limit=0', { headers: listed.admin })).status).toBe(400);
    expect((await rest(stack, 'GET', '/account/v3?sortDirection=3', { headers: listed.admin })).status).toBe(400);
  });
});

describe('roles', () => {
  it('reads and sets roles; roles/query lists admins with their profiles', async () => {
    const member = await join(stack, site);
    const roles = [{ pageId: [], scope: 'Overlays', write: true }];
    const set = await rest(stack, 'PUT', `/account/v3/roles/${member.accountId}`, { headers: site.admin, body: { roles } });
    expect(set.status).toBe(200);
    expect(set.body.roles).toEqual(roles);
    const read = await rest(stack, 'GET', `/account/v3/roles/${member.accountId}`, { headers: site.admin });
    expect(read.body).toEqual(roles);
    const admins = await rest(stack, 'GET', '/account/v3/roles/query?admin=true', { headers: site.admin });
    expect(admins.status).toBe(200);
    expect(admins.body.accounts.every((account: { roles: unknown[] }) => account.roles.length > 0)).toBe(true);
    expect(admins.body.accounts.map((account: { _id: string }) => account._id)).toContain(member.accountId);
    expect(admins.body.userProfiles).toContainEqual({
      _id: member.accountId,
      accountId: member.accountId,
      name: expect.any(String),
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    const byEmail = await rest(stack, 'GET', `/account/v3/roles/query?property=${encodeURIComponent(`email=${member.email}`)}`, { headers: site.admin });
    expect(byEmail.body.accounts.map((account: { _id: string }) => account._id)).toEqual([member.accountId]);
  });

  it('decide what a signed-in account may change: Overlays write may create overlays, read-only or page-bound may not', async () => {
    const overlay = { name: 'Lower third', type: 'template', contents: { html: '<b>{name}</b>' }, duration: 10 };
    const as = async (roles: object[]) => {
      const member = await join(stack, site);
      await rest(stack, 'PUT', `/account/v3/roles/${member.accountId}`, { headers: site.admin, body: { roles } });
      const session = await signIn(site, member.email);
      return rest(stack, 'POST', '/overlay/v1', { headers: bearer(site, session.body.jwt), body: overlay });
    };
    expect((await as([{ pageId: [], scope: 'Overlays', write: true }])).status).toBe(200);
    expect((await as([{ pageId: [], scope: 'Overlays', write: false }])).status).toBe(403);
    expect((await as([{ pageId: ['one-channel'], scope: 'Overlays', write: true }])).status).toBe(403);
    expect((await as([])).status).toBe(403);
  });

  it('a signed-in admin grants only roles it holds; without write access to Accounts it grants none', async () => {
    const target = await join(stack, site);
    const accountsAdmin = await site.token([
      { pageId: [], scope: 'Accounts', write: true },
      { pageId: [], scope: 'Overlays', write: false },
    ]);
    const grant = (token: string, roles: object[]) =>
      rest(stack, 'PUT', `/account/v3/roles/${target.accountId}`, { headers: bearer(site, token), body: { roles } });
    expect((await grant(accountsAdmin, [{ pageId: [], scope: 'Overlays', write: false }])).status).toBe(200);
    const beyond = await grant(accountsAdmin, [{ pageId: [], scope: 'Overlays', write: true }]);
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toMatch(/cannot grant write access to Overlays/);
    expect((await grant(accountsAdmin, [{ pageId: [], scope: '*', write: false }])).status).toBe(403);
    const reader = await site.token([{ pageId: [], scope: 'Accounts', write: false }]);
    expect((await grant(reader, [])).status).toBe(403);
    expect((await rest(stack, 'GET', `/account/v3/roles/${target.accountId}`, { headers: site.admin })).body).toEqual([
      { pageId: [], scope: 'Overlays', write: false },
    ]);
  });

  it('a signed-in admin cannot take over, demote or delete an account holding rights it does not hold', async () => {
    const owner = await join(stack, site);
    await rest(stack, 'PUT', `/account/v3/roles/${owner.accountId}`, { headers: site.admin, body: { roles: [{ pageId: [], scope: '*', write: true }] } });
    const accountsAdmin = await site.token([{ pageId: [], scope: 'Accounts', write: true }]);
    const headers = bearer(site, accountsAdmin);
    for (const [method, path, body] of [
      ['PUT', `/account/v3/${owner.accountId}`, { password: 'taken over now' }],
      ['PUT', `/account/v3/${owner.accountId}`, { email: 'attacker@example.test' }],
      ['PUT', `/account/v3/roles/${owner.accountId}`, { roles: [] }],
      ['DELETE', `/account/v3/${owner.accountId}`, undefined],
    ] as const) {
      const reply = await rest(stack, method, path, { headers, body });
      expect(reply.status).toBe(403);
      expect(reply.body.message).toMatch(/rights you do not hold/);
    }
    expect((await signIn(site, owner.email)).status).toBe(200);
    const peer = await join(stack, site);
    expect((await rest(stack, 'PUT', `/account/v3/${peer.accountId}`, { headers, body: { name: 'Renamed by an admin' } })).status).toBe(200);
  });

  it('refuses malformed roles with 400', async () => {
    const target = await join(stack, site);
    const reply = await rest(stack, 'PUT', `/account/v3/roles/${target.accountId}`, { headers: site.admin, body: { roles: [{ scope: 'Overlays' }] } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/body\.roles\.0\.write is required/);
  });
});

describe('passwords', () => {
  it('changes the password given the old one, signing every session out', async () => {
    const member = await join(stack, site);
    const wrong = await rest(stack, 'PUT', '/account/v3/password', {
      headers: bearer(site, member.jwt),
      body: { oldPassword: 'not it at all', password: 'a brand new one' },
    });
    expect(wrong.status).toBe(401);
    const short = await rest(stack, 'PUT', '/account/v3/password', { headers: bearer(site, member.jwt), body: { oldPassword: PASSWORD, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/password must be at least 8/);
    const changed = await rest(stack, 'PUT', '/account/v3/password', {
      headers: bearer(site, member.jwt),
      body: { oldPassword: PASSWORD, password: 'a brand new one' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.success).toBe(true);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: member.refreshToken } })).status).toBe(401);
    expect((await signIn(site, member.email)).status).toBe(401);
    expect((await signIn(site, member.email, 'a brand new one')).status).toBe(200);
  });

  it('resets a password by e-mail over SMTP: single-use link, the same answer for an unknown e-mail', async () => {
    const member = await join(stack, site);
    const asked = await rest(stack, 'POST', '/account/v3/reset', {
      headers: viewer(site),
      body: { email: member.email, baseUrl: 'https://fans.example.test/reset' },
    });
    expect(asked.status).toBe(200);
    const unknown = await rest(stack, 'POST', '/account/v3/reset', {
      headers: viewer(site),
      body: { email: 'nobody@example.test', baseUrl: 'https://fans.example.test/reset' },
    });
    expect(unknown.body).toEqual(asked.body);
    expect(await stack.database.prisma.mailMessage.count({ where: { to: 'nobody@example.test' } })).toBe(0);

    const mail = await smtp.next(member.email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.parsed.from?.value).toEqual([{ name: 'Stagegraph', address: 'no-reply@stagegraph.test' }]);
    const link = new URL(/https:\/\/fans\.example\.test\/reset\?token=[\w-]+/.exec(mail.text)?.[0] ?? '');
    const token = link.searchParams.get('token') as string;
    expect(token).toMatch(/^sgp_/);
    expect(mail.html).toContain(link.toString());

    const reset = await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(site), body: { token, password: 'chosen after reset' } });
    expect(reset.status).toBe(200);
    expect((await signIn(site, member.email, 'chosen after reset')).status).toBe(200);
    const reused = await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(site), body: { token, password: 'yet another one' } });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toMatch(/token/);

    // Once delivered, the message body (with the link) is not kept.
    const stored = await stack.database.prisma.mailMessage.findFirstOrThrow({ where: { to: member.email } });
    expect(stored).toMatchObject({ status: 'sent', html: null, text: null });
    expect(await stack.database.prisma.passwordReset.count({ where: { tokenHash: token } })).toBe(0);
  });

  it('refuses an expired reset token, another site’s, and a bad baseUrl', async () => {
    const member = await join(stack, site);
    await rest(stack, 'POST', '/account/v3/reset', { headers: viewer(site), body: { email: member.email, baseUrl: 'https://fans.example.test/r' } });
    const mail = await smtp.next(member.email);
    const token = new URL(/https:\/\/\S+/.exec(mail.text)?.[0] ?? '').searchParams.get('token') as string;
    expect((await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(other), body: { token, password: 'whatever it is' } })).status).toBe(400);
    await stack.database.prisma.passwordReset.updateMany({ where: { accountId: member.accountId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(site), body: { token, password: 'whatever it is' } })).status).toBe(400);
    const bad = await rest(stack, 'POST', '/account/v3/reset', { headers: viewer(site), body: { email: member.email, baseUrl: 'javascript:alert(1)' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/baseUrl/);
  });
});

describe('global accounts', () => {
  it('lists the sites a global account administers, and resets its password on all of them', async () => {
    const db = stack.database.prisma;
    const email = `owner-${Date.now()}@example.test`;
    const arena = await provisionSite(db, { name: 'Arena Live', admin: { email, password: PASSWORD } });
    const club = await provisionSite(db, { name: 'Club Nights', admin: { email, password: PASSWORD } });
    await expect(provisionSite(db, { name: 'Third', admin: { email, password: 'not the same password' } })).rejects.toThrow(/another password/);
    const arenaSite = { siteId: arena.siteId } as TestSite;
    const session = await signIn(arenaSite, email);
    expect(session.status).toBe(200);

    const sites = await rest(stack, 'GET', '/account/v3/global/accounts', { headers: bearer(arenaSite, session.body.jwt) });
    expect(sites.status).toBe(200);
    expect(sites.body).toEqual([
      { _id: arena.adminAccountId, siteId: arena.siteId, slug: 'arena-live' },
      { _id: club.adminAccountId, siteId: club.siteId, slug: 'club-nights' },
    ]);
    const searched = await rest(stack, 'GET', '/account/v3/global/accounts?search=club', { headers: bearer(arenaSite, session.body.jwt) });
    expect(searched.body.map((entry: { siteId: string }) => entry.siteId)).toEqual([club.siteId]);
    const member = await join(stack, site);
    expect((await rest(stack, 'GET', '/account/v3/global/accounts', { headers: bearer(site, member.jwt) })).body).toEqual([]);

    await rest(stack, 'POST', '/account/v3/reset/global-accounts', {
      headers: viewer(arenaSite),
      body: { email, baseUrl: 'https://studio.example.test/reset' },
    });
    const mail = await smtp.next(email);
    const token = new URL(/https:\/\/\S+/.exec(mail.text)?.[0] ?? '').searchParams.get('token') as string;
    // A global token does not reset through the site-account path.
    expect((await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(arenaSite), body: { token, password: 'one for all sites' } })).status).toBe(
      400,
    );
    const reset = await rest(stack, 'POST', '/account/v3/reset/global-accounts/update', {
      headers: viewer(arenaSite),
      body: { token, password: 'one for all sites' },
    });
    expect(reset.status).toBe(200);
    expect((await signIn({ siteId: club.siteId } as TestSite, email, 'one for all sites')).status).toBe(200);
    expect((await signIn(arenaSite, email, 'one for all sites')).status).toBe(200);
    expect((await signIn(arenaSite, email)).status).toBe(401);
  });

  it('keeps a global account’s password out of one site’s admin’s reach', async () => {
    const db = stack.database.prisma;
    const email = `shared-${Date.now()}@example.test`;
    const mine = await provisionSite(db, { name: 'Mine', admin: { email, password: PASSWORD } });
    const theirs = await provisionSite(db, { name: 'Theirs', admin: { email, password: PASSWORD } });
    const theirAdmin = { 'x-service-client-id': theirs.siteId, 'x-service-developer-key': theirs.developerKey };
    const setPassword = await rest(stack, 'PUT', `/account/v3/${theirs.adminAccountId}`, { headers: theirAdmin, body: { password: 'set by one site' } });
    expect(setPassword.status).toBe(403);
    expect(setPassword.body.message).toMatch(/global account/);
    // Moving the site account's e-mail does not move where its reset link goes.
    await rest(stack, 'PUT', `/account/v3/${theirs.adminAccountId}`, { headers: theirAdmin, body: { email: 'attacker@example.test' } });
    await rest(stack, 'POST', '/account/v3/reset', {
      headers: viewer({ siteId: theirs.siteId } as TestSite),
      body: { email: 'attacker@example.test', baseUrl: 'https://x.example.test/r' },
    });
    const mail = await smtp.next(email);
    expect(mail.to).toEqual([email]);
    expect(await db.mailMessage.count({ where: { to: 'attacker@example.test' } })).toBe(0);
    expect((await signIn({ siteId: mine.siteId } as TestSite, email)).status).toBe(200);
  });

  it('sends no global reset for an e-mail without an account on the site', async () => {
    const email = `elsewhere-${Date.now()}@example.test`;
    await provisionSite(stack.database.prisma, { name: 'Elsewhere', admin: { email, password: PASSWORD } });
    const reply = await rest(stack, 'POST', '/account/v3/reset/global-accounts', {
      headers: viewer(site),
      body: { email, baseUrl: 'https://studio.example.test/reset' },
    });
    expect(reply.status).toBe(200);
    expect(await stack.database.prisma.passwordReset.count({ where: { siteId: site.siteId, globalAccountId: { not: null } } })).toBe(0);
  });
});

describe('the outbox, when SMTP_URL is unset', () => {
  it('keeps reset e-mail for the operator: no site API returns it, not even to the site’s own developer key', async () => {
    const local = await startTestStack();
    const localSite = await createTestSite(local);
    const member = await join(local, localSite);
    await rest(local, 'POST', '/account/v3/reset', { headers: viewer(localSite), body: { email: member.email, baseUrl: 'https://fans.example.test/reset' } });
    expect(await waitingMail(local.database.prisma, { to: member.email })).toEqual([
      expect.objectContaining({
        kind: 'password-reset',
        to: member.email,
        siteId: localSite.siteId,
        subject: 'Reset your password',
        html: expect.stringContaining('https://fans.example.test/reset?token=sgp_'),
      }),
    ]);
    for (const headers of [localSite.admin, bearer(localSite, member.jwt)]) {
      const reply = await rest(local, 'GET', '/customemail/v1/outbox', { headers });
      expect(reply.status).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain('sgp_');
    }
    const graphqlReply = await graphql(local, '{ mailOutbox { html } }', {}, localSite.admin);
    expect(graphqlReply.status).toBe(400);
    expect(JSON.stringify(graphqlReply.body)).not.toContain('sgp_');
  });
});

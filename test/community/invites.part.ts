/**
 * Invites (magic links) over the documented REST paths: create, list with filters, get, update,
 * delete, open (consume) once, and revoke before and after consumption as the seed's States table
 * says. What an invite gives shows in `me { subscriptions }`, which the content check reads.
 */
import type { Stack } from '../../stack';
import { activeSkus, createSku, join, viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  await createSku(stack, site, 'finals');
  await createSku(stack, site, 'backstage');
  await createSku(stack, other, 'finals');
});
afterAll(stopAll);

const REDIRECT = 'https://fans.example.test/channel/finals?lang=en';

async function createInvite(who: TestSite = site, body: object = {}) {
  const reply = await rest(stack, 'POST', '/invite/v1/magic-link/', {
    headers: who.admin,
    body: { redirectUri: REDIRECT, siteId: who.siteId, targetSkus: ['finals', 'backstage'], ...body },
  });
  if (reply.status !== 200) throw new Error(`invite not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { invite: { _id: string; token: string }; inviteUrl: string };
}

const consume = (token: string, headers: Record<string, string> = viewer(site)) => rest(stack, 'POST', '/invite/v1/consume', { headers, body: { token } });

describe('creating and reading invites', () => {
  it('answers the invite and its link; the token is shown this once', async () => {
    const { invite, inviteUrl } = await createInvite();
    expect(invite).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      consumed: false,
      redirectUri: REDIRECT,
      revoked: false,
      siteId: site.siteId,
      targetSkus: ['finals', 'backstage'],
      targetRoles: [],
      token: expect.stringMatching(/^sgi_[\w-]{43}$/),
      type: 'magic-link',
      created: expect.any(Number),
      modified: expect.any(Number),
      tags: [],
    });
    const url = new URL(inviteUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://fans.example.test/channel/finals');
    expect(url.searchParams.get('lang')).toBe('en');
    expect(url.searchParams.get('inviteToken')).toBe(invite.token);

    const got = await rest(stack, 'GET', `/invite/v1/${invite._id}`, { headers: site.admin });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...invite, token: null });
    const stored = await stack.database.prisma.invite.findUniqueOrThrow({ where: { id: invite._id } });
    expect(JSON.stringify(stored)).not.toContain(invite.token);
  });

  it.each([
    ['an unknown SKU', { targetSkus: ['finals', 'nope'] }, /targetSkus: no entitlement has the SKU nope/],
    ['no SKU', { targetSkus: [] }, /body\.targetSkus must NOT have fewer than 1 items/],
    ['a redirectUri that is not http(s)', { redirectUri: 'javascript:alert(1)' }, /redirectUri must be an http\(s\) URL/],
    ['another site’s siteId', { siteId: 'some-other-site' }, /siteId/],
  ])('refuses %s with 400 and writes nothing', async (_label, body, message) => {
    const before = await stack.database.prisma.invite.count({ where: { siteId: site.siteId } });
    const reply = await rest(stack, 'POST', '/invite/v1/magic-link/', {
      headers: site.admin,
      body: { redirectUri: REDIRECT, siteId: site.siteId, targetSkus: ['finals'], ...body },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
    expect(await stack.database.prisma.invite.count({ where: { siteId: site.siteId } })).toBe(before);
  });

  it('lists the site’s invites, by consumed and revoked', async () => {
    const listed = await createTestSite(stack, 'Listed');
    await createSku(stack, listed, 'finals');
    const fresh = await createInvite(listed, { targetSkus: ['finals'] });
    const used = await createInvite(listed, { targetSkus: ['finals'] });
    const revoked = await createInvite(listed, { targetSkus: ['finals'] });
    await consume(used.invite.token, viewer(listed));
    await rest(stack, 'DELETE', `/invite/v1/revoke/${revoked.invite._id}`, { headers: listed.admin });
    const ids = async (query: string) =>
      (await rest(stack, 'GET', `/invite/v1/${query}`, { headers: listed.admin })).body.map((invite: { _id: string }) => invite._id).sort();
    expect(await ids('')).toEqual([fresh.invite._id, used.invite._id, revoked.invite._id].sort());
    expect(await ids('?consumed=true')).toEqual([used.invite._id]);
    expect(await ids('?consumed=false&revoked=false')).toEqual([fresh.invite._id]);
    expect(await ids('?revoked=true')).toEqual([revoked.invite._id]);
    expect((await rest(stack, 'GET', '/invite/v1/?consumed=maybe', { headers: listed.admin })).status).toBe(400);
  });

  it('keeps each site’s invites to itself, and needs the Invites permission', async () => {
    const { invite } = await createInvite(other, { targetSkus: ['finals'] });
    expect((await rest(stack, 'GET', '/invite/v1/', { headers: site.admin })).body.map((item: { _id: string }) => item._id)).not.toContain(invite._id);
    for (const [method, path, body] of [
      ['GET', `/invite/v1/${invite._id}`, undefined],
      ['PUT', `/invite/v1/${invite._id}`, { redirectUri: 'https://evil.example.test/' }],
      ['DELETE', `/invite/v1/${invite._id}`, undefined],
      ['DELETE', `/invite/v1/revoke/${invite._id}`, undefined],
    ] as const) {
      expect((await rest(stack, method, path, { headers: site.admin, body })).status).toBe(404);
    }
    expect((await rest(stack, 'GET', `/invite/v1/${invite._id}`, { headers: other.admin })).body).toMatchObject({ redirectUri: REDIRECT, revoked: false });
    const member = await join(stack, site);
    expect((await rest(stack, 'GET', '/invite/v1/', { headers: viewer(site, member.jwt) })).status).toBe(403);
    const reader = await site.token([{ pageId: [], scope: 'Invites', write: false }]);
    expect((await rest(stack, 'GET', '/invite/v1/', { headers: viewer(site, reader) })).status).toBe(200);
    expect(
      (
        await rest(stack, 'POST', '/invite/v1/magic-link/', {
          headers: viewer(site, reader),
          body: { redirectUri: REDIRECT, siteId: site.siteId, targetSkus: ['finals'] },
        })
      ).status,
    ).toBe(403);
  });
});

describe('opening an invite', () => {
  it('gives someone not signed in a guest account, a session and the target SKUs, once', async () => {
    const { invite } = await createInvite();
    const opened = await consume(invite.token);
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({
      invite: expect.objectContaining({ _id: invite._id, consumed: true, revoked: false, token: null }),
      redirectUri: REDIRECT,
      accountId: expect.stringMatching(/^[0-9a-f]{24}$/),
      session: { jwt: expect.any(String), refreshToken: expect.stringMatching(/^sgr_/), service: 'stagegraph' },
    });
    expect(await activeSkus(stack, site, opened.body.session.jwt)).toEqual(['backstage', 'finals']);
    const me = await rest(stack, 'GET', `/account/v3/${opened.body.accountId}`, { headers: viewer(site, opened.body.session.jwt) });
    expect(me.body.subscriptions.map((held: { grantedMethod: string }) => held.grantedMethod)).toEqual(['invite', 'invite']);

    const again = await consume(invite.token);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, message: 'this invite was already used' });
  });

  it('gives a signed-in account the target SKUs on that account', async () => {
    const { invite } = await createInvite(site, { targetSkus: ['finals'] });
    const member = await join(stack, site);
    const opened = await consume(invite.token, viewer(site, member.jwt));
    expect(opened.status).toBe(200);
    expect(opened.body.accountId).toBe(member.accountId);
    expect(opened.body.session).toBeNull();
    expect(await activeSkus(stack, site, member.jwt)).toEqual(['finals']);
  });

  it('is opened once under concurrent openings', async () => {
    const { invite } = await createInvite(site, { targetSkus: ['finals'] });
    const replies = await Promise.all([1, 2, 3, 4].map(() => consume(invite.token)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await stack.database.prisma.subscription.count({ where: { grantedById: invite._id } })).toBe(1);
  });

  it('answers 404 for an unknown token and for a token on another site', async () => {
    const { invite } = await createInvite(other, { targetSkus: ['finals'] });
    expect((await consume('sgi_unknown')).status).toBe(404);
    expect((await consume(invite.token, viewer(site))).status).toBe(404);
    expect((await rest(stack, 'GET', `/invite/v1/${invite._id}`, { headers: other.admin })).body.consumed).toBe(false);
  });

  it('grants target roles only to a signed-in account, and only roles its creator holds', async () => {
    const roles = [{ pageId: [], scope: 'Overlays', write: true }];
    const { invite } = await createInvite(site, { targetSkus: ['finals'], targetRoles: roles });
    const anonymous = await consume(invite.token);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toMatch(/sign in/);
    const member = await join(stack, site);
    expect((await consume(invite.token, viewer(site, member.jwt))).status).toBe(200);
    expect((await rest(stack, 'GET', `/account/v3/roles/${member.accountId}`, { headers: site.admin })).body).toEqual(roles);

    const invitesAdmin = await site.token([{ pageId: [], scope: 'Invites', write: true }]);
    const beyond = await rest(stack, 'POST', '/invite/v1/magic-link/', {
      headers: viewer(site, invitesAdmin),
      body: { redirectUri: REDIRECT, siteId: site.siteId, targetSkus: ['finals'], targetRoles: roles },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toMatch(/targetRoles/);
  });
});

describe('revoking (the States table)', () => {
  it('before consumption: the link stops working', async () => {
    const { invite } = await createInvite();
    const revoked = await rest(stack, 'DELETE', `/invite/v1/revoke/${invite._id}`, { headers: site.admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: 'invite revoked: its link no longer works' });
    const opened = await consume(invite.token);
    expect(opened.status).toBe(403);
    expect(opened.body.message).toMatch(/revoked/);
    expect((await rest(stack, 'GET', `/invite/v1/${invite._id}`, { headers: site.admin })).body).toMatchObject({ revoked: true, consumed: false });
    expect(await stack.database.prisma.subscription.count({ where: { grantedById: invite._id } })).toBe(0);
  });

  it('after consumption: the subscriptions it gave are removed, and a guest’s session ends', async () => {
    const { invite } = await createInvite();
    const opened = await consume(invite.token);
    const member = await join(stack, site);
    const second = await createInvite(site, { targetSkus: ['finals'] });
    await consume(second.invite.token, viewer(site, member.jwt));
    await rest(
      stack,
      'POST',
      `/community/v1/grant-entitlement/?${new URLSearchParams({ accountId: member.accountId, subscriptionId: 'backstage' }).toString()}`,
      { headers: site.admin },
    );

    const revoked = await rest(stack, 'DELETE', `/invite/v1/revoke/${invite._id}`, { headers: site.admin });
    expect(revoked.body).toEqual({ success: true, message: 'invite revoked: 2 subscription(s) it gave were removed' });
    expect(await activeSkus(stack, site, opened.body.session.jwt)).toEqual([]);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: opened.body.session.refreshToken } })).status).toBe(
      401,
    );

    await rest(stack, 'DELETE', `/invite/v1/revoke/${second.invite._id}`, { headers: site.admin });
    // Only what the invite gave goes: the admin's grant stays, and the signed-in account keeps its session.
    expect(await activeSkus(stack, site, member.jwt)).toEqual(['backstage']);
    expect((await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: member.refreshToken } })).status).toBe(200);

    const again = await rest(stack, 'DELETE', `/invite/v1/revoke/${invite._id}`, { headers: site.admin });
    expect(again.body).toEqual({ success: true, message: 'invite was already revoked' });
  });
});

describe('updating and deleting invites', () => {
  it('updates redirectUri and target roles; a revoked invite does not change', async () => {
    const { invite } = await createInvite();
    const updated = await rest(stack, 'PUT', `/invite/v1/${invite._id}`, {
      headers: site.admin,
      body: { redirectUri: 'https://fans.example.test/other', siteId: site.siteId, targetRoles: [{ scope: 'Overlays', write: false }] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      redirectUri: 'https://fans.example.test/other',
      targetRoles: [{ pageId: [], scope: 'Overlays', write: false }],
      token: null,
    });
    expect((await rest(stack, 'PUT', `/invite/v1/${invite._id}`, { headers: site.admin, body: { redirectUri: 'ftp://x' } })).status).toBe(400);
    await rest(stack, 'DELETE', `/invite/v1/revoke/${invite._id}`, { headers: site.admin });
    expect((await rest(stack, 'PUT', `/invite/v1/${invite._id}`, { headers: site.admin, body: { redirectUri: REDIRECT } })).status).toBe(409);
  });

  it('deletes an invite: it is gone and its link no longer opens', async () => {
    const { invite } = await createInvite();
    const deleted = await rest(stack, 'DELETE', `/invite/v1/${invite._id}`, { headers: site.admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body.success).toBe(true);
    expect((await rest(stack, 'GET', `/invite/v1/${invite._id}`, { headers: site.admin })).status).toBe(404);
    expect((await consume(invite.token)).status).toBe(404);
  });
});

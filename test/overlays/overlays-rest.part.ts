/** Overlays over the documented REST paths: every operation, its errors, and tenancy. */
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

const template = {
  name: 'Score bug',
  description: 'live score',
  type: 'template',
  contents: { html: '<div>${home} {homeScore} - {awayScore} ${away}</div>' },
  cta: { type: 'show_panel', data: 'panel-1' },
  duration: 30,
};

/** Channels of site A (channel1, channel9, x, y) and one of site B (theirX). */
let channel1: string;
let channel9: string;
let x: string;
let y: string;
let theirX: string;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  [channel1, channel9, x, y] = [
    await createChannel(stack, site.siteId),
    await createChannel(stack, site.siteId),
    await createChannel(stack, site.siteId),
    await createChannel(stack, site.siteId),
  ];
  theirX = await createChannel(stack, other.siteId);
});
afterAll(stopAll);

async function createOverlay(owner: TestSite, body: object = template) {
  const reply = await rest(stack, 'POST', '/overlay/v1', { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body;
}

describe('overlay CRUD', () => {
  it('creates an overlay and returns it in the seed shape', async () => {
    const before = Date.now();
    const overlay = await createOverlay(site, { ...template, siteId: site.siteId });
    expect(overlay).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      siteId: site.siteId,
      name: 'Score bug',
      description: 'live score',
      type: 'template',
      contents: template.contents,
      cta: template.cta,
      duration: 30,
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    expect(overlay.created).toBeGreaterThanOrEqual(before - 1000);
    expect(overlay.created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('lists and gets the overlays of the caller’s site only', async () => {
    const mine = await createOverlay(site);
    const theirs = await createOverlay(other, { ...template, name: 'Other site' });
    const list = await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
    expect(list.status).toBe(200);
    const ids = list.body.map((overlay: { _id: string }) => overlay._id);
    expect(ids).toContain(mine._id);
    expect(ids).not.toContain(theirs._id);
    expect(list.body.every((overlay: { siteId: string }) => overlay.siteId === site.siteId)).toBe(true);

    const got = await rest(stack, 'GET', `/overlay/v1/${mine._id}`, { headers: site.admin });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(mine);
  });

  it('answers 404 for another site’s overlay, for reads and writes alike', async () => {
    const theirs = await createOverlay(other);
    for (const [method, path, body] of [
      ['GET', `/overlay/v1/${theirs._id}`, undefined],
      ['PUT', `/overlay/v1/${theirs._id}`, { name: 'stolen' }],
      ['POST', `/overlay/v1/broadcast/${theirs._id}`, {}],
      ['POST', `/broadcast/${theirs._id}/tag/vip`, {}],
    ] as const) {
      const reply = await rest(stack, method, path, { headers: site.admin, body });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ success: false, message: expect.stringContaining('not found') });
    }
    const unchanged = await rest(stack, 'GET', `/overlay/v1/${theirs._id}`, { headers: other.admin });
    expect(unchanged.body.name).toBe(template.name);
  });

  it('updates only the fields given', async () => {
    const overlay = await createOverlay(site);
    const reply = await rest(stack, 'PUT', `/overlay/v1/${overlay._id}`, {
      headers: site.admin,
      body: { _id: overlay._id, name: 'Renamed', duration: 12 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ _id: overlay._id, name: 'Renamed', duration: 12, contents: template.contents, cta: template.cta });
    expect(reply.body.modified).toBeGreaterThanOrEqual(overlay.modified);
  });
});

describe('bad input is refused with 400 naming the field, and nothing is written', () => {
  const cases: [string, unknown, RegExp][] = [
    ['duration of the wrong type', { ...template, duration: 'ten' }, /body\.duration/],
    ['a non-positive duration', { ...template, duration: 0 }, /body\.duration/],
    ['an unknown type', { ...template, type: 'banner' }, /body\.type/],
    ['a missing name', { ...template, name: undefined }, /body\.name/],
    ['an unknown field', { ...template, colour: 'red' }, /body\.colour/],
    ['a template without html', { ...template, contents: { text: 'x' } }, /contents\.html/],
    ['another site’s siteId', { ...template, siteId: 'someone-else' }, /siteId/],
  ];
  it.each(cases)('%s', async (_label, body, field) => {
    const before = await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
    const reply = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.message).toMatch(field);
    const after = await rest(stack, 'GET', '/overlay/v1', { headers: site.admin });
    expect(after.body).toHaveLength(before.body.length);
  });

  it('malformed JSON', async () => {
    const reply = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, rawBody: '{"name": "x",' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: 'the body is not valid JSON' });
  });

  it('a body that is not JSON', async () => {
    const reply = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' });
    expect(reply.status).toBe(415);
    expect(reply.body.success).toBe(false);
  });

  it('a broadcast with a non-positive duration or non-string variables', async () => {
    const overlay = await createOverlay(site);
    const zero = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { duration: -5 } });
    expect(zero.status).toBe(400);
    expect(zero.body.message).toMatch(/body\.duration/);
    const nested = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { variables: { home: { x: 1 } } } });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toMatch(/body\.variables\.home/);
  });

  it('an update that empties the name', async () => {
    const overlay = await createOverlay(site);
    const reply = await rest(stack, 'PUT', `/overlay/v1/${overlay._id}`, { headers: site.admin, body: { name: '' } });
    expect(reply.status).toBe(400);
    const unchanged = await rest(stack, 'GET', `/overlay/v1/${overlay._id}`, { headers: site.admin });
    expect(unchanged.body.name).toBe(template.name);
  });
});

describe('credentials', () => {
  it('needs the site ID', async () => {
    const reply = await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-developer-key': site.developerKey } });
    expect(reply.status).toBe(401);
    expect(reply.body.success).toBe(false);
  });

  it('refuses an unknown site and a developer key of another site', async () => {
    const unknown = await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-client-id': 'no-such-site' } });
    expect(unknown.status).toBe(401);
    const crossed = await rest(stack, 'GET', '/overlay/v1', {
      headers: { 'x-service-client-id': site.siteId, 'x-service-developer-key': other.developerKey },
    });
    expect(crossed.status).toBe(401);
    expect(crossed.body.message).toMatch(/developer key/);
  });

  it('a write with the site ID alone is refused: it needs D or J', async () => {
    const reply = await rest(stack, 'POST', '/overlay/v1', { headers: { 'x-service-client-id': site.siteId }, body: template });
    expect(reply.status).toBe(401);
    expect(reply.body.message).toMatch(/developer-key|Bearer/);
  });

  it('a JWT with write access on Overlays may write; one without it gets 403', async () => {
    const writer = await site.token([{ pageId: [], scope: 'Overlays', write: true }]);
    const reader = await site.token([{ pageId: [], scope: 'Overlays', write: false }]);
    const nobody = await site.token([]);
    const create = (token: string) =>
      rest(stack, 'POST', '/overlay/v1', { headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${token}` }, body: template });
    expect((await create(writer)).status).toBe(200);
    expect((await create(reader)).status).toBe(403);
    expect((await create(nobody)).status).toBe(403);
    const read = await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${reader}` } });
    expect(read.status).toBe(200);
  });

  it('a JWT of one site is refused on another, and a forged one everywhere', async () => {
    const token = await site.token([{ pageId: [], scope: '*', write: true }]);
    const crossed = await rest(stack, 'GET', '/overlay/v1', { headers: { 'x-service-client-id': other.siteId, authorization: `Bearer ${token}` } });
    expect(crossed.status).toBe(401);
    const [header, payload] = token.split('.');
    const forged = await rest(stack, 'GET', '/overlay/v1', {
      headers: { 'x-service-client-id': site.siteId, authorization: `Bearer ${header}.${payload}.AAAA` },
    });
    expect(forged.status).toBe(401);
  });
});

describe('broadcasts', () => {
  it('fills ${var} and {var} forms, escapes HTML, and reports the broadcast', async () => {
    const overlay = await createOverlay(site);
    const reply = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, {
      headers: site.admin,
      body: { duration: 5, channelId: channel1, variables: { home: 'Reds', away: '<Blues>', homeScore: 2, awayScore: '1' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      success: true,
      broadcastId: expect.any(String),
      channelId: channel1,
      tagId: null,
      variables: { home: 'Reds', away: '<Blues>', homeScore: '2', awayScore: '1' },
    });
    expect(reply.body.overlay.contents).toEqual({
      html: '<div>Reds 2 - 1 &lt;Blues&gt;</div>',
      templateId: overlay._id,
      variables: { home: 'Reds', away: '<Blues>', homeScore: '2', awayScore: '1' },
    });
    expect(reply.body.expiresAt - reply.body.startedAt).toBe(5000);
  });

  it('takes the sports workflow’s targetId as the channel, and the overlay’s duration by default', async () => {
    const overlay = await createOverlay(site);
    const reply = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { targetId: channel9 } });
    expect(reply.status).toBe(200);
    expect(reply.body.channelId).toBe(channel9);
    expect(reply.body.expiresAt - reply.body.startedAt).toBe(template.duration * 1000);
  });

  it('broadcasts to a tag', async () => {
    const overlay = await createOverlay(site);
    const reply = await rest(stack, 'POST', `/broadcast/${overlay._id}/tag/vip`, { headers: site.admin, body: { channelId: channel1 } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, tagId: 'vip', channelId: channel1 });
  });

  it('answers 404 naming channelId for a channel that exists nowhere, or on another site, and stores nothing', async () => {
    const overlay = await createOverlay(site);
    await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
    const targets: [string, Record<string, unknown>][] = [
      [`/overlay/v1/broadcast/${overlay._id}`, { channelId: 'no-such-channel' }],
      [`/overlay/v1/broadcast/${overlay._id}`, { targetId: theirX }],
      [`/broadcast/${overlay._id}/tag/vip`, { channelId: 'no-such-channel' }],
    ];
    for (const [path, body] of targets) {
      const reply = await rest(stack, 'POST', path, { headers: site.admin, body });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ success: false, message: expect.stringContaining('channel') });
    }
    expect((await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin })).body.cleared).toBe(0);
  });

  it('clears one channel’s broadcasts, then all of the site’s, and never another site’s', async () => {
    const overlay = await createOverlay(site);
    const theirs = await createOverlay(other);
    await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
    await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: other.admin });
    for (const channelId of [x, x, y]) {
      expect((await rest(stack, 'POST', `/overlay/v1/broadcast/${overlay._id}`, { headers: site.admin, body: { channelId } })).status).toBe(200);
    }
    expect((await rest(stack, 'POST', `/overlay/v1/broadcast/${theirs._id}`, { headers: other.admin, body: { channelId: theirX } })).status).toBe(200);

    const one = await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${x}`, { headers: site.admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, cleared: 2, message: expect.any(String) });
    const all = await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
    expect(all.body.cleared).toBe(1);
    const theirsLeft = await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: other.admin });
    expect(theirsLeft.body.cleared).toBe(1);
  });
});

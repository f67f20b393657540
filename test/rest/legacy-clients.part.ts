/**
 * What legacy clients send: the seed's own bodies, and a resource read from the API sent back unchanged
 * to its PUT (or replace) route. Read-only fields (`_id`, timestamps, a matching siteId, derived
 * fields) are ignored; unknown fields are still refused, and a siteId of another site too.
 */
import type { Stack } from '../../stack';
import { join } from '../helpers/community';
import { rest } from '../helpers/http';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Legacy');
  other = await createTestSite(stack, 'Other');
});
afterAll(stopAll);

it('accepts the seed’s Poll fields alone (type, question, name, siteId, open, correctAnswerId)', async () => {
  for (const body of [
    { type: 'trivia', question: 'Capital of France?', name: 'Quiz', siteId: site.siteId, open: true, correctAnswerId: 'paris' },
    { type: 'poll', question: 'How is the show?', name: 'Mood', siteId: site.siteId, open: true, correctAnswerId: null },
    { type: 'prediction', question: 'Who wins?', name: 'Winner', siteId: site.siteId, open: false },
  ]) {
    const reply = await rest(stack, 'POST', '/poll/v3/', { headers: site.admin, body });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ ...body, correctAnswerId: body.correctAnswerId ?? null, answers: [] });
    const read = await rest(stack, 'GET', `/poll/v3/${reply.body._id}`, { headers: site.admin });
    expect(read.body).toEqual(reply.body);
  }
});

interface Resource {
  name: string;
  /** Creates the resource; answers the path it is read from and the path (and method) it is replaced at. */
  create(): Promise<{ read: string; replace: string; method?: 'PUT' | 'POST'; headers?: Record<string, string>; wrap?: string }>;
}

const created = async (method: string, path: string, body: unknown, headers = site.admin) => {
  const reply = await rest(stack, method, path, { headers, body });
  expect([200, 201]).toContain(reply.status);
  return reply.body;
};

const resources: Resource[] = [
  {
    name: 'overlay',
    async create() {
      const overlay = await created('POST', '/overlay/v1', {
        name: 'Goal',
        type: 'template',
        contents: { html: '<b>{team}</b>' },
        duration: 10,
        siteId: site.siteId,
      });
      return { read: `/overlay/v1/${overlay._id}`, replace: `/overlay/v1/${overlay._id}` };
    },
  },
  {
    name: 'panel',
    async create() {
      const panel = await created('POST', '/panel/v3/', { siteId: site.siteId, renderer: { panel_type: 'chat', panel_name: 'Chat' } });
      return { read: `/panel/v3/${panel._id}`, replace: `/panel/v3/${panel._id}` };
    },
  },
  {
    name: 'poll',
    async create() {
      const poll = await created('POST', '/poll/v3/', {
        type: 'trivia',
        name: 'Quiz',
        question: 'Capital?',
        answers: [
          { id: 'a', text: 'Paris' },
          { id: 'b', text: 'Lyon' },
        ],
        correctAnswerId: 'a',
      });
      return { read: `/poll/v3/${poll._id}`, replace: `/poll/v3/${poll._id}` };
    },
  },
  {
    name: 'quest',
    async create() {
      const quest = await created('POST', '/quest/v2', {
        title: 'Super fan',
        description: 'Watch',
        actions: [{ arrayId: '1', kind: 'watch:any:video', valueRequired: 60 }],
        channelIds: ['c1'],
        rewardDescription: 'A shirt',
        rewardType: 'raffle',
        siteId: site.siteId,
        claimedMessage: 'In the draw',
        rewardInage: 'https://cdn.example/shirt.png',
        timeMinimum: 1_700_000_000_000,
        timeMaximum: 1_800_000_000_000,
        webhookId: 'Q-1',
        webhookType: 'points',
        webhookValue: 5,
      });
      return { read: `/quest/v2/${quest._id}`, replace: `/quest/v2/${quest._id}` };
    },
  },
  {
    name: 'calendar event',
    async create() {
      const event = await created('POST', '/calendar/v1/', {
        titleRaw: 'Final',
        descriptionRaw: 'The final',
        siteId: site.siteId,
        thirdPartyEventId: 'ext-1',
        categories: [{ id: 'cat', title: 'Sports', label: { id: 'lbl', title: 'Football', color: '#00ff00' } }],
        date: { startTimestamp: 1_800_000_000_000, endTimestamp: 1_800_003_600_000, useEndTime: true, timeZone: 'Europe/Paris' },
        image: { show: true, src: 'https://cdn.example/e.png' },
      });
      return { read: `/calendar/v1/${event._id}`, replace: `/calendar/v1/${event._id}` };
    },
  },
  {
    name: 'channel template',
    async create() {
      // A template names panels and rules the site has.
      const panel = await created('POST', '/panel/v3/', { siteId: site.siteId, renderer: { panel_type: 'chat', panel_name: 'Chat' } });
      const template = await created('POST', '/page/v2/template', {
        title: 'Sports night',
        siteId: site.siteId,
        panels: [{ collection: 'panels', creator: 'u1', owner: 'u1', site_id: site.siteId, slug: panel.slug, type: 'chat' }],
        rules: [],
        theme: 'classic-dark',
        creator: 'u1',
        owner: 'u1',
      });
      return { read: `/page/v2/template/${template.templateId}`, replace: `/page/v2/template/${template.templateId}` };
    },
  },
  {
    name: 'page',
    async create() {
      const page = await created('POST', '/pages/v3', {
        slug: `legacy-${Date.now()}`,
        type: 'channel',
        base_language: 'en',
        data: { name: 'Legacy channel' },
        seo: { title: 'Legacy' },
      });
      return { read: `/page/v2/${page._id}`, replace: `/pages/v3/${page._id}` };
    },
  },
  {
    name: 'playlist',
    async create() {
      const playlist = await created('POST', '/playlist/v1', { title: 'Replays', description: 'all', members: [{ id: 'ext-1', schema: 'link' }], tags: ['a'] });
      return { read: `/playlist/v1/${playlist._id}`, replace: `/playlist/v1/${playlist._id}`, method: 'POST' };
    },
  },
  {
    name: 'automation rule',
    async create() {
      const provider = await created('POST', '/dataprovider/v1/register', {
        name: `Scores ${Date.now()}`,
        description: 'scores',
        ownerName: 'Ada',
        ownerEmail: 'ada@example.test',
        realtime: true,
        ttl: null,
        schema: { type: 'object', properties: { data: { type: 'object', properties: { score: { type: 'number' } } } } },
      });
      const template = await created('POST', '/overlay/v1', { name: 'Score', type: 'template', contents: { html: '{score}' }, duration: 5 });
      const rule = await created('POST', '/personalization/v1/', {
        name: 'Goal alert',
        active: true,
        clientRule: false,
        jsonRule: {
          trigger: { dataProviderId: provider.dataProviderId, fact: 'data.score', operator: 'greater_than', value: '2', behavior: 'immediate' },
          action: {
            type: 'SEND_OVERLAY',
            targeting: { scope: 'all_channels', target: [] },
            templateId: template._id,
            dataMap: { score: 'data.score' },
            broadcastPayload: { duration: 5 },
          },
        },
      });
      return { read: `/personalization/v1/${rule.id}`, replace: `/personalization/v1/${rule.id}` };
    },
  },
  {
    name: 'webhook endpoint',
    async create() {
      const endpoint = await created('POST', '/webhook/v1/', { url: 'https://hooks.example.test/in', events: ['admin.channelUpdated'], description: 'ops' });
      return { read: `/webhook/v1/${endpoint._id}`, replace: `/webhook/v1/${endpoint._id}` };
    },
  },
  {
    name: 'site',
    async create() {
      return { read: '/site/v1/', replace: '/site/v1/' };
    },
  },
  {
    name: 'entitlement',
    async create() {
      const entitlement = await created('POST', '/entitlement/v1/', {
        sku: `pass-${Date.now()}`,
        name: 'Pass',
        recurrence: 'month',
        prices: [{ currency: 'USD', value: 9.99, default: true }],
      });
      return { read: `/entitlement/v1/${entitlement._id}`, replace: `/entitlement/v1/${entitlement._id}` };
    },
  },
  {
    name: 'invite',
    async create() {
      await created('POST', '/entitlement/v1/', { sku: 'finals', name: 'Finals', prices: [{ currency: 'USD', value: 5, default: true }] });
      const invite = await created('POST', '/invite/v1/magic-link/', {
        redirectUri: 'https://fans.example.test/',
        siteId: site.siteId,
        targetSkus: ['finals'],
      });
      return { read: `/invite/v1/${invite.invite._id}`, replace: `/invite/v1/${invite.invite._id}` };
    },
  },
  {
    name: 'account (by an admin)',
    async create() {
      const member = await join(stack, site);
      return { read: `/account/v3/${member.accountId}`, replace: `/account/v3/${member.accountId}` };
    },
  },
  {
    name: 'own account',
    async create() {
      const member = await join(stack, site);
      const headers = { 'x-service-client-id': site.siteId, authorization: `Bearer ${member.jwt}` };
      return { read: `/account/v3/${member.accountId}`, replace: '/account/v3/', headers };
    },
  },
  {
    name: 'account roles',
    async create() {
      const member = await join(stack, site);
      // The seed reads roles as an array and sets them as { roles }.
      return { read: `/account/v3/roles/${member.accountId}`, replace: `/account/v3/roles/${member.accountId}`, wrap: 'roles' };
    },
  },
];

describe('a resource read and sent back unchanged is accepted; unknown fields are still refused', () => {
  it.each(resources.map((resource) => [resource.name, resource] as const))('%s', async (_name, resource) => {
    const { read, replace, method = 'PUT', headers = site.admin, wrap } = await resource.create();
    const reply = await rest(stack, 'GET', read, { headers });
    expect(reply.status).toBe(200);
    const before = { status: reply.status, body: wrap ? { [wrap]: reply.body } : reply.body };
    const sentBack = await rest(stack, method, replace, { headers, body: before.body });
    expect({ status: sentBack.status, message: sentBack.status === 200 ? null : sentBack.body?.message }).toEqual({ status: 200, message: null });
    const after = await rest(stack, 'GET', read, { headers });
    expect(after.status).toBe(200);

    const unknown = await rest(stack, method, replace, { headers, body: { ...before.body, notAField: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ success: false, message: expect.stringContaining('notAField') });

    for (const field of ['siteId', 'site_id']) {
      if (!(field in before.body)) continue;
      const elsewhere = await rest(stack, method, replace, { headers, body: { ...before.body, [field]: other.siteId } });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.message).toContain(field);
    }
  });
});

it('overlay routes accept J alone, as the sports workflow sends it: the site is the token’s, and a C sent too must match', async () => {
  const token = await site.token([{ pageId: [], scope: 'Overlays', write: true }]);
  const bearer = { authorization: `Bearer ${token}` };
  const made = await rest(stack, 'POST', '/overlay/v1', { headers: bearer, body: { name: 'Score', type: 'instance', contents: { text: '1-0' }, duration: 5 } });
  expect(made.status).toBe(200);
  expect(made.body.siteId).toBe(site.siteId);
  expect((await rest(stack, 'GET', `/overlay/v1/${made.body._id}`, { headers: bearer })).status).toBe(200);
  const pitch = await createChannel(stack, site.siteId);
  expect((await rest(stack, 'POST', `/overlay/v1/broadcast/${made.body._id}`, { headers: bearer, body: { targetId: pitch } })).status).toBe(200);
  expect((await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${pitch}`, { headers: bearer })).status).toBe(200);
  expect((await rest(stack, 'GET', '/overlay/v1', { headers: { ...bearer, 'x-service-client-id': other.siteId } })).status).toBe(401);
  // Other families keep the seed's C + J.
  expect((await rest(stack, 'GET', '/panel/v3/', { headers: bearer })).status).toBe(401);
});

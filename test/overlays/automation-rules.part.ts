/**
 * Automation rules (personalization) over the documented REST paths, and rules fired by real signed
 * data events: every operator, SEND_OVERLAY to channels and tagged viewers over graphql-ws, inactive
 * rules, 200 concurrent events, tenancy.
 */
import { createHmac } from 'node:crypto';
import { channelNamed, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { watch, type Viewer } from '../helpers/viewer';
import { until } from '../helpers/wait';
import type { Stack } from '../../stack';

let stack: Stack;
let site: TestSite;
let other: TestSite;
let provider: { dataProviderId: string; secret: string };
let templateId: string;
const viewers: Viewer[] = [];

const schema = {
  type: 'object',
  properties: {
    data: { type: 'object', properties: { score: { type: 'number' }, team: { type: 'string' }, labels: { type: 'array', items: { type: 'string' } } } },
    meta: { type: 'object', properties: { type: { type: 'string' } } },
  },
};

async function registerProvider(owner: TestSite = site, name = 'Scores') {
  const body = { name, description: 'scores', schema, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true };
  const reply = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: owner.admin, body });
  expect(reply.status).toBe(201);
  return reply.body as { dataProviderId: string; secret: string };
}

async function createTemplate(owner: TestSite = site, name = 'Score bug', duration = 30) {
  const body = { name, type: 'template', contents: { html: '<b>${team}: {score}</b> ${note}' }, duration };
  const reply = await rest(stack, 'POST', '/overlay/v1', { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body._id as string;
}

function jsonRule(trigger: object = {}, action: object = {}, targeting: object = {}) {
  return {
    trigger: { dataProviderId: provider.dataProviderId, fact: 'data.score', operator: 'greater_than', value: '2', behavior: 'immediate', ...trigger },
    action: {
      type: 'SEND_OVERLAY',
      targeting: { scope: 'all_channels', target: [], ...targeting },
      templateId,
      dataMap: { team: 'data.team', score: 'data.score' },
      broadcastPayload: { duration: 5, variables: { note: 'live' } },
      ...action,
    },
  };
}

async function createRule(body: object, owner: TestSite = site) {
  const reply = await rest(stack, 'POST', '/personalization/v1/', { headers: owner.admin, body });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}

const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

async function sendEvent(payload: object, to = provider) {
  const text = JSON.stringify(payload);
  const reply = await rest(stack, 'POST', `/dataprovider/v1/${to.dataProviderId}/events`, {
    headers: { 'X-DataProvider-Signature': sign(to.secret, text) },
    rawBody: text,
  });
  expect(reply.status).toBe(201);
  return reply;
}

const ACTIVE = /* GraphQL */ `query { activeOverlayBroadcasts { broadcastId channelId tags variables expiresAt startedAt overlay { id name contents } } }`;

async function activeBroadcasts(owner: TestSite = site) {
  const reply = await graphql(stack, ACTIVE, {}, owner.admin);
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.activeOverlayBroadcasts as {
    broadcastId: string;
    channelId: string | null;
    tags: string[];
    variables: Record<string, string>;
    expiresAt: number;
    startedAt: number;
    overlay: { id: string; name: string; contents: any };
  }[];
}

/** The site's channel (a real page) the test calls `name`. */
const channel = (name: string) => channelNamed(stack, site.siteId, name);

async function viewer(options: Parameters<typeof watch>[1]): Promise<Viewer> {
  const opened = await watch(stack, options);
  viewers.push(opened);
  return opened;
}

beforeAll(async () => {
  // These tests read the broadcasts right after the 201, which waits for the rules' overlays up to RULE_WAIT_MS:
  // a loaded machine gets all the time it needs, so what is read is the rules' doing, not the clock's.
  stack = await startTestStack({ env: { RULE_WAIT_MS: '60000' } });
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  provider = await registerProvider();
  templateId = await createTemplate();
});
afterEach(async () => {
  await Promise.all(viewers.splice(0).map((opened) => opened.close()));
  await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
});
afterAll(stopAll);

describe('rule operations', () => {
  it('creates a rule (201 { success, id, get }) and reads it back in the seed shape', async () => {
    const id = await createRule({ name: 'Goal alert', jsonRule: jsonRule(), active: true, clientRule: false });
    const created = await rest(stack, 'GET', `/personalization/v1/${id}`, { headers: site.admin });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      success: true,
      _id: id,
      name: 'Goal alert',
      dataSourceId: provider.dataProviderId,
      siteId: site.siteId,
      jsonRule: {
        trigger: { dataProviderId: provider.dataProviderId, fact: 'data.score', operator: 'greater_than', value: '2', behavior: 'immediate' },
        action: {
          type: 'SEND_OVERLAY',
          targeting: { scope: 'all_channels', target: [], segment: 'all_viewers', tags: [] },
          templateId,
          dataMap: { team: 'data.team', score: 'data.score' },
          broadcastPayload: { duration: 5, variables: { note: 'live' } },
        },
      },
      isActive: true,
      channelId: null,
      clientRule: false,
      created: expect.any(Number),
      modified: expect.any(Number),
    });
    const reply = await rest(stack, 'POST', '/personalization/v1/', { headers: site.admin, body: { name: 'Linked', jsonRule: jsonRule() } });
    expect(reply.body).toEqual({ success: true, id: expect.any(String), get: `/personalization/v1/${reply.body.id}` });
    expect((await rest(stack, 'GET', reply.body.get, { headers: site.admin })).status).toBe(200);
  });

  it('lists the site’s rules, filtered by clientRule', async () => {
    const server = await createRule({ name: 'Server side', jsonRule: jsonRule(), clientRule: false });
    const client = await createRule({ name: 'Client side', jsonRule: jsonRule(), clientRule: true });
    const all = await rest(stack, 'GET', '/personalization/v1/', { headers: site.admin });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ success: true, message: expect.any(String) });
    const ids = all.body.results.map((rule: { _id: string }) => rule._id);
    expect(ids).toEqual(expect.arrayContaining([server, client]));
    const clientOnly = await rest(stack, 'GET', '/personalization/v1/?clientRule=true', { headers: site.admin });
    expect(clientOnly.body.results.every((rule: { clientRule: boolean }) => rule.clientRule)).toBe(true);
    expect(clientOnly.body.results.map((rule: { _id: string }) => rule._id)).toContain(client);
    const serverOnly = await rest(stack, 'GET', '/personalization/v1/?clientRule=false', { headers: site.admin });
    expect(serverOnly.body.results.map((rule: { _id: string }) => rule._id)).toContain(server);
    expect(serverOnly.body.results.map((rule: { _id: string }) => rule._id)).not.toContain(client);
  });

  it('updates any field (200 { success, message })', async () => {
    const id = await createRule({ name: 'Before', jsonRule: jsonRule() });
    const reply = await rest(stack, 'PUT', `/personalization/v1/${id}`, {
      headers: site.admin,
      body: { name: 'After', active: false, clientRule: true, channelId: 'arena', jsonRule: jsonRule({ operator: 'less_than', value: '1' }) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, message: expect.any(String) });
    const got = await rest(stack, 'GET', `/personalization/v1/${id}`, { headers: site.admin });
    expect(got.body).toMatchObject({
      name: 'After',
      isActive: false,
      clientRule: true,
      channelId: 'arena',
      jsonRule: { trigger: { operator: 'less_than', value: '1' } },
    });
  });

  it('deletes one rule, and many by ids (total asked, removed done)', async () => {
    const one = await createRule({ name: 'One', jsonRule: jsonRule() });
    const removed = await rest(stack, 'DELETE', `/personalization/v1/automation-rule/${one}`, { headers: site.admin });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) });
    expect((await rest(stack, 'GET', `/personalization/v1/${one}`, { headers: site.admin })).status).toBe(404);
    expect((await rest(stack, 'DELETE', `/personalization/v1/automation-rule/${one}`, { headers: site.admin })).status).toBe(404);

    const a = await createRule({ name: 'A', jsonRule: jsonRule() });
    const b = await createRule({ name: 'B', jsonRule: jsonRule() });
    const theirs = await createRule(
      {
        name: 'Theirs',
        jsonRule: {
          ...jsonRule(),
          trigger: { ...jsonRule().trigger, dataProviderId: (await registerProvider(other, 'Other')).dataProviderId },
          action: { ...jsonRule().action, templateId: await createTemplate(other) },
        },
      },
      other,
    );
    const many = await rest(stack, 'PUT', `/personalization/v1/automation-rule?ids=${a},${b},${theirs},${'f'.repeat(24)}`, { headers: site.admin });
    expect(many.status).toBe(200);
    expect(many.body).toEqual({ success: true, total: 4, removed: 2, message: expect.any(String) });
    expect((await rest(stack, 'GET', `/personalization/v1/${a}`, { headers: site.admin })).status).toBe(404);
    expect((await rest(stack, 'GET', `/personalization/v1/${theirs}`, { headers: other.admin })).status).toBe(200);
  });

  it('refuses a rule that is not well formed, naming the field, and stores nothing', async () => {
    const otherProvider = await registerProvider(other, 'Foreign');
    const before = await stack.database.prisma.automationRule.count({ where: { siteId: site.siteId } });
    const cases: [object, string][] = [
      [{ name: 'x', jsonRule: jsonRule({ operator: 'roughly' }) }, 'jsonRule.trigger.operator'],
      [{ name: 'x', jsonRule: { action: jsonRule().action } }, 'jsonRule.trigger'],
      [{ name: 'x', jsonRule: jsonRule({ dataProviderId: otherProvider.dataProviderId }) }, 'jsonRule.trigger.dataProviderId'],
      [{ name: 'x', jsonRule: jsonRule({ fact: 'data.nothing' }) }, 'jsonRule.trigger.fact'],
      [{ name: 'x', jsonRule: jsonRule({ value: { nested: true } }) }, 'jsonRule.trigger.value'],
      [{ name: 'x', jsonRule: jsonRule({ behavior: 'eventually' }) }, 'jsonRule.trigger.behavior'],
      [{ name: 'x', jsonRule: jsonRule({}, { type: 'SEND_EMAIL' }) }, 'jsonRule.action.type'],
      [{ name: 'x', jsonRule: jsonRule({}, { templateId: 'f'.repeat(24) }) }, 'jsonRule.action.templateId'],
      [{ name: 'x', jsonRule: jsonRule({}, {}, { scope: 'specific_channels', target: [] }) }, 'jsonRule.action.targeting.target'],
      [{ name: 'x', jsonRule: jsonRule({}, {}, { segment: 'viewers_with_tags', tags: [] }) }, 'jsonRule.action.targeting.tags'],
      [{ name: 'x', jsonRule: jsonRule({}, { dataMap: { team: 7 } }) }, 'jsonRule.action.dataMap.team'],
      [{ name: 'x', jsonRule: jsonRule({}, { broadcastPayload: { duration: -1 } }) }, 'jsonRule.action.broadcastPayload.duration'],
      [{ jsonRule: jsonRule() }, 'name'],
    ];
    for (const [body, field] of cases) {
      const reply = await rest(stack, 'POST', '/personalization/v1/', { headers: site.admin, body });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain(field);
    }
    expect(await stack.database.prisma.automationRule.count({ where: { siteId: site.siteId } })).toBe(before);
  });

  it('needs write access to AutomationRules for a signed-in account', async () => {
    const reader = await site.token([{ pageId: [], scope: 'AutomationRules', write: false }]);
    const headers = { 'x-service-client-id': site.siteId, Authorization: `Bearer ${reader}` };
    expect((await rest(stack, 'GET', '/personalization/v1/', { headers })).status).toBe(200);
    expect((await rest(stack, 'POST', '/personalization/v1/', { headers, body: { name: 'x', jsonRule: jsonRule() } })).status).toBe(403);
  });

  it('keeps sites apart: another site’s rule is 404 and never listed', async () => {
    const id = await createRule({ name: 'Private', jsonRule: jsonRule() });
    for (const [method, path, body] of [
      ['GET', `/personalization/v1/${id}`, undefined],
      ['PUT', `/personalization/v1/${id}`, { name: 'stolen' }],
      ['DELETE', `/personalization/v1/automation-rule/${id}`, undefined],
    ] as const) {
      expect((await rest(stack, method, path, { headers: other.admin, body })).status).toBe(404);
    }
    const list = await rest(stack, 'GET', '/personalization/v1/', { headers: other.admin });
    expect(list.body.results.map((rule: { _id: string }) => rule._id)).not.toContain(id);
    expect((await rest(stack, 'GET', `/personalization/v1/${id}`, { headers: site.admin })).body.name).toBe('Private');
  });
});

describe('rules fired by data events', () => {
  it('evaluates every operator, numbers as numbers', async () => {
    const source = await registerProvider(site, 'Operators');
    const cases: [string, string, unknown, boolean][] = [
      ['data.score', 'equal', '10', true],
      ['data.score', 'equal', 11, false],
      ['data.score', 'not_equal', '11', true],
      ['data.score', 'greater_than', '9', true],
      ['data.score', 'greater_than', '10', false],
      ['data.score', 'greater_than_inclusive', '10', true],
      ['data.score', 'less_than', '11', true],
      ['data.score', 'less_than', '9.5', false],
      ['data.score', 'less_than_inclusive', '10', true],
      ['data.team', 'in', 'away, home', true],
      ['data.team', 'in', ['away'], false],
      ['data.team', 'not_in', 'away', true],
      ['data.team', 'not_in', ['home', 'away'], false],
      ['data.labels', 'contains', 'derby', true],
      ['data.labels', 'contains', 'final', false],
      ['data.team', 'contains', 'om', true],
      ['meta.type', 'equal', 'goal', false],
    ];
    const names: string[] = [];
    for (const [index, [fact, operator, value]] of cases.entries()) {
      const name = `op-${index}-${operator}`;
      names.push(name);
      const template = await createTemplate(site, name);
      // A channel each: of the rules an event meets for one channel only the first by priority shows there.
      const targeting = { scope: 'specific_channels', target: [await channel(name)] };
      await createRule({
        name,
        jsonRule: { ...jsonRule({ dataProviderId: source.dataProviderId, fact, operator, value }, { templateId: template }, targeting) },
      });
    }
    await sendEvent({ data: { score: 10, team: 'home', labels: ['derby', 'cup'] }, meta: {} }, source);
    const fired = new Set((await activeBroadcasts()).map((broadcast) => broadcast.overlay.name));
    expect(names.filter((name) => fired.has(name))).toEqual(names.filter((_name, index) => cases[index][3]));
  });

  it('broadcasts the template with dataMap variables and broadcastPayload to every channel’s viewers', async () => {
    const source = await registerProvider(site, 'All channels');
    await createRule({ name: 'Everywhere', jsonRule: jsonRule({ dataProviderId: source.dataProviderId }) });
    const main = await viewer({ siteId: site.siteId, channelId: await channel('main') });
    const arena = await viewer({ siteId: site.siteId, channelId: await channel('arena') });
    await sendEvent({ data: { score: 1, team: 'home' } }, source);
    await sendEvent({ data: { score: 3, team: 'Home <FC>' } }, source);
    for (const watcher of [main, arena]) {
      const event = await watcher.next();
      expect(event).toMatchObject({ kind: 'SHOW', channelId: null, variables: { team: 'Home <FC>', score: '3', note: 'live' }, overlay: { id: templateId } });
      expect(event.overlay.contents.html).toBe('<b>Home &lt;FC&gt;: 3</b> live');
      expect(event.expiresAt - event.startedAt).toBe(5000);
      await watcher.none(200);
    }
  });

  it('targets specific channels only', async () => {
    const source = await registerProvider(site, 'Specific');
    await createRule({
      name: 'Arena only',
      jsonRule: jsonRule(
        { dataProviderId: source.dataProviderId },
        {},
        { scope: 'specific_channels', target: [await channel('arena'), await channel('court')] },
      ),
    });
    const main = await viewer({ siteId: site.siteId, channelId: await channel('main') });
    const arena = await viewer({ siteId: site.siteId, channelId: await channel('arena') });
    const court = await viewer({ siteId: site.siteId, channelId: await channel('court') });
    await sendEvent({ data: { score: 5, team: 'away' } }, source);
    expect((await arena.next()).channelId).toBe(await channel('arena'));
    expect((await court.next()).channelId).toBe(await channel('court'));
    await main.none();
  });

  it('reaches only viewers whose account carries one of the tags (viewers_with_tags), live and on joining late', async () => {
    const source = await registerProvider(site, 'Tagged');
    await createRule({
      name: 'VIP',
      jsonRule: jsonRule({ dataProviderId: source.dataProviderId }, {}, { segment: 'viewers_with_tags', tags: ['vip', 'gold'] }),
    });
    const gold = await viewer({ siteId: site.siteId, channelId: await channel('main'), token: await site.token([], ['gold']) });
    const basic = await viewer({ siteId: site.siteId, channelId: await channel('main'), token: await site.token([], ['basic']) });
    const anonymous = await viewer({ siteId: site.siteId, channelId: await channel('main') });
    await sendEvent({ data: { score: 7, team: 'home' } }, source);
    const event = await gold.next();
    expect(event.variables).toMatchObject({ score: '7' });
    await basic.none();
    await anonymous.none(50);
    const [stored] = (await activeBroadcasts()).filter((broadcast) => broadcast.broadcastId === event.broadcastId);
    expect(stored.tags).toEqual(['vip', 'gold']);

    const lateVip = await viewer({ siteId: site.siteId, channelId: await channel('main'), token: await site.token([], ['vip']) });
    expect((await lateVip.next()).broadcastId).toBe(event.broadcastId);
    const lateBasic = await viewer({ siteId: site.siteId, channelId: await channel('main'), token: await site.token([], ['basic']) });
    await lateBasic.none();

    // The single-tag broadcast of POST /broadcast/{id}/tag/{tagId} works as before.
    const tagged = await rest(stack, 'POST', `/broadcast/${templateId}/tag/basic`, { headers: site.admin, body: { channelId: await channel('main') } });
    expect(tagged.body).toMatchObject({ success: true, tagId: 'basic' });
    expect((await basic.next()).tagId).toBe('basic');
    await gold.none(50);
  });

  it('never fires an inactive rule; activating, deactivating and deleting take effect for the next event', async () => {
    const source = await registerProvider(site, 'Toggled');
    const id = await createRule({ name: 'Toggled', active: false, jsonRule: jsonRule({ dataProviderId: source.dataProviderId }) });
    const watcher = await viewer({ siteId: site.siteId, channelId: await channel('main') });
    await sendEvent({ data: { score: 9 } }, source);
    await watcher.none();

    await rest(stack, 'PUT', `/personalization/v1/${id}`, { headers: site.admin, body: { active: true } });
    await sendEvent({ data: { score: 9, team: 'on' } }, source);
    expect((await watcher.next()).variables.team).toBe('on');

    await rest(stack, 'PUT', `/personalization/v1/${id}`, { headers: site.admin, body: { isActive: false } });
    await sendEvent({ data: { score: 9, team: 'off' } }, source);
    await watcher.none();

    await rest(stack, 'PUT', `/personalization/v1/${id}`, { headers: site.admin, body: { active: true } });
    await rest(stack, 'DELETE', `/personalization/v1/automation-rule/${id}`, { headers: site.admin });
    await sendEvent({ data: { score: 9, team: 'deleted' } }, source);
    await watcher.none();
  });

  it('stores 200 concurrent events and fires exactly for the matching ones', async () => {
    const source = await registerProvider(site, 'Burst');
    // Shown for 10 minutes: the first broadcasts are still on when the 200th event is in, however loaded the machine.
    const template = await createTemplate(site, 'Burst template', 600);
    await createRule({
      name: 'Over 149',
      jsonRule: jsonRule({ dataProviderId: source.dataProviderId, operator: 'greater_than', value: '149' }, { templateId: template }),
    });
    await Promise.all(Array.from({ length: 200 }, (_, score) => sendEvent({ data: { score, team: `t${score}` } }, source)));
    const events = await graphql(
      stack,
      /* GraphQL */ `query E($id: ID!) { dataEvents(dataProviderId: $id, limit: 500) { id } }`,
      { id: source.dataProviderId },
      site.admin,
    );
    expect(events.body.data.dataEvents).toHaveLength(200);
    // A provider's answer waits for its rules' overlays only so long (the event is stored either way): on a loaded
    // machine the last firings land after their answers, so the broadcasts are waited for, then checked exactly.
    const fired = await until(
      async () => (await activeBroadcasts()).filter((broadcast) => broadcast.overlay.id === template),
      (broadcasts) => broadcasts.length >= 50,
      'the matching events fired',
    );
    expect(fired.map((broadcast) => Number(broadcast.variables.score)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => 150 + index));
  });

  it('does not fire another site’s rules', async () => {
    const theirs = await registerProvider(other, 'Their feed');
    const theirTemplate = await createTemplate(other, 'Their template');
    await createRule(
      { name: 'Theirs', jsonRule: { ...jsonRule({ dataProviderId: theirs.dataProviderId }), action: { ...jsonRule().action, templateId: theirTemplate } } },
      other,
    );
    const mine = await viewer({ siteId: site.siteId, channelId: await channel('main') });
    const theirViewer = await viewer({ siteId: other.siteId, channelId: await channelNamed(stack, other.siteId, 'main') });
    await sendEvent({ data: { score: 50, team: 'x' } }, theirs);
    expect((await theirViewer.next()).overlay.id).toBe(theirTemplate);
    await mine.none();
    await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: other.admin });
  });
});

describe('priority (targeting.priority)', () => {
  /** A rule of `scores` that broadcasts the template `name` to `targeting`; created after every rule before it (its own millisecond). */
  async function rankedRule(scores: { dataProviderId: string }, name: string, targeting: object): Promise<string> {
    const before = Date.now();
    await until(
      async () => Date.now(),
      (now) => now > before,
      'a millisecond of its own',
    );
    const template = await createTemplate(site, name);
    return createRule({
      name,
      active: true,
      jsonRule: jsonRule({ dataProviderId: scores.dataProviderId }, { templateId: template }, targeting),
    });
  }
  const shownOn = async (channelId: string | null) =>
    (await activeBroadcasts())
      .filter((broadcast) => broadcast.channelId === channelId)
      .map((broadcast) => broadcast.overlay.name)
      .sort();

  it('shows on each channel only the highest priority’s overlay, the newest rule of a tie; every channel gets its own', async () => {
    const scores = await registerProvider(site, 'Ranked scores');
    const [x, y] = [await channel('ranked-x'), await channel('ranked-y')];
    await rankedRule(scores, 'X low', { scope: 'specific_channels', target: [x], priority: 1 });
    await rankedRule(scores, 'X high', { scope: 'specific_channels', target: [x], priority: 5 });
    await rankedRule(scores, 'X high, newer', { scope: 'specific_channels', target: [x], priority: 5 });
    await rankedRule(scores, 'Y only', { scope: 'specific_channels', target: [y] });
    await sendEvent({ data: { score: 3, team: 'Lions' } }, scores);
    expect(await shownOn(x)).toEqual(['X high, newer']);
    expect(await shownOn(y)).toEqual(['Y only']);
  });

  it('lets a rule for every channel outrank one for a single channel, which still shows where it outranks it', async () => {
    const scores = await registerProvider(site, 'Site-wide scores');
    const [x, y] = [await channel('wide-x'), await channel('wide-y')];
    await rankedRule(scores, 'Everywhere', { scope: 'all_channels', priority: 10 });
    await rankedRule(scores, 'X below', { scope: 'specific_channels', target: [x], priority: 3 });
    await rankedRule(scores, 'Y above', { scope: 'specific_channels', target: [y], priority: 20 });
    await sendEvent({ data: { score: 9, team: 'Lions' } }, scores);
    expect(await shownOn(null)).toEqual(['Everywhere']);
    expect(await shownOn(x)).toEqual([]);
    expect(await shownOn(y)).toEqual(['Y above']);
  });
});

/**
 * Viewer-facing reads kept per instance (page configuration, the shared part of the content check):
 * two instances of one deployment (PostgreSQL + Redis when DATABASE_URL / REDIS_URL say so, otherwise
 * SQLite and one shared in-process bus); every kind of change written on the first is what the second
 * answers next — page, panels, theme, site settings, gate, entitlements granted or revoked, access codes
 * consumed — and one viewer's access is never another's. ETag and 304 on both reads. What viewers do by
 * the thousand (a poll answer, a chat message) announces no change.
 */
import { Topics } from '../../shared/bus';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { createSku, join, type Member } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let writer: Stack;
let reader: Stack;
let site: TestSite;

beforeAll(async () => {
  const bus = usingRedis ? undefined : createMemoryBus();
  writer = await startTestStack({ bus });
  reader = await startTestStack({ sameDeploymentAs: writer, bus });
  site = await createTestSite(writer, 'Cached site');
});
afterAll(stopAll);

const viewer = () => ({ 'x-service-client-id': site.siteId });
const signedIn = (member: Member) => ({ 'x-service-client-id': site.siteId, authorization: `Bearer ${member.jwt}` });

/** Resolves when `stack` has heard the next change announcement (its caches heard it first). */
function nextChangeOn(stack: Stack): Promise<void> {
  return new Promise((resolve) => {
    const stop = stack.bus.subscribe(Topics.viewerReadsChanged, () => {
      stop();
      resolve();
    });
  });
}

/** Resolves when `stack` has heard the next change of accounts' entitlements (its content check's copies heard it first). */
function accessChangeOn(stack: Stack): Promise<void> {
  return new Promise((resolve) => {
    const stop = stack.bus.subscribe(Topics.accountAccessChanged, (message) => {
      if ((message as { part?: string }).part !== 'entitlements') return;
      stop();
      resolve();
    });
  });
}

/** Runs a write on the writer and waits until the reader has heard of it. */
async function write(method: string, path: string, body?: unknown, headers: Record<string, string> = site.admin) {
  const heard = nextChangeOn(reader);
  const reply = await rest(writer, method, path, { headers, body });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  await heard;
  return reply;
}

let slugs = 0;
async function channel(data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const reply = await write('POST', '/pages/v3', { slug: `cached-${++slugs}`, type: 'channel', data: { name: `Channel ${slugs}`, ...data }, ...extra });
  return reply.body as { _id: string };
}

const configuration = (pageId: string, headers: Record<string, string> = {}) =>
  rest(reader, 'GET', `/page/v2/configuration/${pageId}`, { headers: { ...viewer(), ...headers } });
const contentCheck = (pageId: string, headers: Record<string, string>, device = 'device-1') =>
  rest(reader, 'GET', `/pages/v2/content/id/${pageId}`, { headers: { ...headers, 'x-service-device-id': device } });

describe('page configuration', () => {
  it('is shared with a CDN: Cache-Control, Vary, ETag and 304 on If-None-Match', async () => {
    const page = await channel({});
    const first = await configuration(page._id);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=1');
    expect(first.headers.get('vary')).toMatch(/x-service-client-id/i);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await configuration(page._id, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect((await configuration(page._id, { 'if-none-match': `W/${etag}` })).status).toBe(304);
    const other = await configuration(page._id, { 'if-none-match': '"something-else"' });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(first.body);
    expect(other.headers.get('etag')).toBe(etag);
  });

  it('follows a change of the page, its panels and the theme written on another instance', async () => {
    const panel = (await write('POST', '/panel/v3/', { siteId: site.siteId, renderer: { panel_type: 'chat', panel_name: 'Chat' } })).body as { _id: string };
    const page = await channel(
      { theme: { classic_theme_options: { accent_primary: '#111111' } } },
      { renderers: { sidebar: { items: [{ array_id: '1', id: panel._id }] } } },
    );
    const before = await configuration(page._id);
    expect(before.body.page.name).toBe(`Channel ${slugs}`);
    expect(before.body.panels.map((item: { panel_name: string }) => item.panel_name)).toEqual(['Chat']);
    expect(before.body.theme.colors.accentPrimary).toBe('#111111');
    const etags = new Set([before.headers.get('etag')]);

    await write('PUT', `/pages/v3/${page._id}`, { data: { name: 'Renamed', theme: { classic_theme_options: { accent_primary: '#222222' } } } });
    const renamed = await configuration(page._id, { 'if-none-match': before.headers.get('etag') as string });
    expect(renamed.status).toBe(200);
    expect(renamed.body.page.name).toBe('Renamed');
    expect(renamed.body.theme.colors.accentPrimary).toBe('#222222');
    etags.add(renamed.headers.get('etag'));

    await write('PATCH', `/panel/v3/${panel._id}`, { renderer: { panel_name: 'Talk' } });
    const repanelled = await configuration(page._id);
    expect(repanelled.body.panels.map((item: { panel_name: string }) => item.panel_name)).toEqual(['Talk']);
    etags.add(repanelled.headers.get('etag'));

    await write('PUT', '/site/v1/', { settings: { theme: { mode: 'light', colors: { text100: '#333333' } } } });
    const themed = await configuration(page._id);
    expect(themed.body.theme.mode).toBe('light');
    expect(themed.body.theme.colors.text100).toBe('#333333');
    etags.add(themed.headers.get('etag'));
    expect(etags.size).toBe(4);
  });

  it('is kept per site: another site never gets it', async () => {
    const page = await channel({});
    expect((await configuration(page._id)).status).toBe(200);
    const other = await createTestSite(writer, 'Other cached site');
    expect((await rest(reader, 'GET', `/page/v2/configuration/${page._id}`, { headers: { 'x-service-client-id': other.siteId } })).status).toBe(404);
  });
});

describe('content check', () => {
  it('sends a private ETag and answers 304 while the answer is the same', async () => {
    const page = await channel({ gate: { active: false, kind: 'none' } });
    const first = await contentCheck(page._id, viewer());
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.headers.get('etag') as string;
    expect(
      (await rest(reader, 'GET', `/pages/v2/content/id/${page._id}`, { headers: { ...viewer(), 'x-service-device-id': 'device-1', 'if-none-match': etag } }))
        .status,
    ).toBe(304);
  });

  it('follows the gate and the site’s device limit written on another instance', async () => {
    const page = await channel({ gate: { active: false, kind: 'none' } });
    expect((await contentCheck(page._id, viewer())).body.canIPlayResponse.contentCheck.access).toBe('full');
    await write('PUT', `/pages/v3/${page._id}`, { data: { gate: { active: true, kind: 'subscription', gate: { subscriptions: ['gold'], title: 'Gold' } } } });
    const gated = await contentCheck(page._id, viewer());
    expect(gated.body.canIPlayResponse.contentCheck.access).toBe('none');
    expect(gated.body.canIPlayResponse.error.type).toBe('entitlement_required');

    await write('PUT', '/site/v1/', { deviceLimit: 7 });
    expect((await contentCheck(page._id, viewer())).body.canIPlayResponse.deviceCheck.siteDeviceLimit).toBe(7);
  });

  it('follows entitlements granted, revoked and bought with an access code, and never shows one viewer’s access to another', async () => {
    await createSku(writer, site, 'gold');
    const page = await channel({ gate: { active: true, kind: 'subscription', gate: { subscriptions: ['gold'], title: 'Gold' } } });
    const holder = await join(writer, site);
    const stranger = await join(writer, site);
    const access = async (member: Member) =>
      (await contentCheck(page._id, signedIn(member), `device-${member.accountId}`)).body.canIPlayResponse.contentCheck.access;
    expect(await access(holder)).toBe('none');

    const granted = accessChangeOn(reader);
    await rest(writer, 'POST', `/community/v1/grant-entitlement/?accountId=${holder.accountId}&subscriptionId=gold`, { headers: site.admin });
    await granted;
    expect(await access(holder)).toBe('full');
    expect(await access(stranger)).toBe('none');
    expect(await access(holder)).toBe('full');

    const held = await rest(writer, 'POST', '/graphql', { headers: signedIn(holder), body: { query: /* GraphQL */ `{ me { subscriptions { id } } }` } });
    const [subscription] = held.body.data.me.subscriptions as { id: string }[];
    // The reader keeps what the holder holds (the content check's go-live path): it follows the removal once it has heard of it.
    const heard = accessChangeOn(reader);
    const removed = await rest(
      writer,
      'PATCH',
      `/community/v1/update-entitlement/?accountId=${holder.accountId}&action=remove&id=${subscription.id}&grantRefund=false`,
      { headers: site.admin },
    );
    expect(removed.status).toBe(200);
    await heard;
    const refused = await contentCheck(page._id, signedIn(holder), `device-${holder.accountId}`);
    expect(refused.body.canIPlayResponse.contentCheck.access).toBe('none');
    expect(refused.body.canIPlayResponse.error.type).toBe('entitlement_required');

    const code = `GOLD-${Date.now()}`;
    expect(
      (await rest(writer, 'POST', `/accesscode/v1/?accessCode=${code}&siteId=${site.siteId}&sku=gold&type=subscription`, { headers: site.admin })).status,
    ).toBe(200);
    expect((await rest(writer, 'GET', `/accesscode/v1/consume/${code}`, { headers: signedIn(stranger) })).status).toBe(200);
    expect(await access(stranger)).toBe('full');
    expect(await access(holder)).toBe('none');
  });
});

describe('viewer activity', () => {
  it('announces no content change: a poll answer and a chat message leave every instance’s caches as they are', async () => {
    const poll = await write('POST', '/poll/v3/', {
      type: 'poll',
      name: 'Quiet',
      question: 'Which?',
      answers: [
        { id: 'a', text: 'A' },
        { id: 'b', text: 'B' },
      ],
    });
    const panel = await write('POST', '/panel/v3/', { siteId: site.siteId, renderer: { panel_type: 'chat' } });
    const heard: unknown[] = [];
    const stop = reader.bus.subscribe(Topics.viewerReadsChanged, (message) => heard.push(message));
    try {
      const { token } = await site.signIn([]);
      expect(
        (
          await rest(writer, 'POST', `/poll/v3/${poll.body._id}/answer`, {
            headers: { ...viewer(), authorization: `Bearer ${token}` },
            body: { answerId: 'a' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await rest(writer, 'POST', `/chat/v1/${panel.body._id}/messages`, {
            headers: { ...viewer(), authorization: `Bearer ${token}` },
            body: { text: 'hello' },
          })
        ).status,
      ).toBe(201);
      // The bus keeps one order: had the answer or the message announced, the reader would hear it before this write's.
      await write('PATCH', `/panel/v3/${panel.body._id}`, { renderer: { system_name: 'Stage' } });
      expect(heard).toEqual([{ siteId: site.siteId }]);
    } finally {
      stop();
    }
  });
});

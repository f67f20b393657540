/**
 * The viewer side in a real browser (headless Chromium, test/helpers/browser.ts) against the real stack:
 * the overlay embed (/embed/v1/overlays + /sdk/v1/embed.js) showing live broadcasts, sanitizing what
 * templates and variables carry, CLEAR and expiry, routing by channel and site, late joiners, a reconnect,
 * a viewer token; and the timecode path from a started stream to the player helper on another origin.
 */
import type { Browser, Frame, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, startStaticSite, startWatchPage, type StaticSite, waitInPage, waitShown } from '../helpers/browser';
import { rest } from '../helpers/http';
import { startTcpProxy, type TcpProxy } from '../helpers/proxy';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { pause } from '../helpers/wait';
import { startFakeStreamProvider, type FakeStreamProvider } from '../helpers/streamProvider';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const window: any;
declare const document: any;
type HTMLElement = any;

let stack: Stack;
let site: TestSite;
let other: TestSite;
let channel: string;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
  channel = await createChannel(stack, site.siteId);
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await browser?.close();
  await stopAll();
});

async function createOverlay(body: object, owner: TestSite = site): Promise<string> {
  const reply = await rest(stack, 'POST', '/overlay/v1', { headers: owner.admin, body: { type: 'template', duration: 30, ...body } });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

async function broadcast(overlayId: string, body: object = {}, owner: TestSite = site): Promise<{ broadcastId: string; streamSecond: number | null }> {
  const reply = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: owner.admin, body });
  expect(reply.status).toBe(200);
  return reply.body;
}

/** A new page that records every `stagegraph:overlay` event of every frame in `window.__shown`. */
async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  await page.evaluateOnNewDocument(() => {
    const shown: unknown[] = [];
    window.__shown = shown;
    window.addEventListener('stagegraph:overlay', (event: { detail: unknown }) => shown.push(event.detail));
  });
  return page;
}

/** The embed of `query`, open and connected (its first connection acknowledged). */
async function openEmbed(query: Record<string, string>, base = stack.url): Promise<Page> {
  const page = await newPage();
  await page.goto(`${base}/embed/v1/overlays?${new URLSearchParams(query).toString()}`);
  await waitInPage(page, () => window.stagegraphEmbed?.connected === true);
  return page;
}

const overlayOf = (broadcastId: string) => `[data-overlay-id][data-broadcast-id="${broadcastId}"]`;

/** Waits until the embed has received the live event of `broadcastId` (shown or not). */
function received(target: Page | Frame, broadcastId: string, count = 1) {
  return waitInPage(target, (id, n) => window.stagegraphEmbed.received.filter((r: string) => r === id).length >= n, {}, broadcastId, count);
}

describe('the embed page and the SDK scripts', () => {
  it("the tests' waits see a change in a page that is not in front (puppeteer's own check on animation frames never would)", async () => {
    const behind = await newPage();
    await behind.goto(`${stack.url}/embed/v1/overlays`);
    await newPage();
    await behind.evaluate(() => setTimeout(() => (window.__changed = true), 200));
    expect(await (await waitInPage(behind, () => window.__changed === true, { timeout: 10_000 })).jsonValue()).toBe(true);
  });

  it('serve the embed to be framed by any site, and the scripts to any origin', async () => {
    const embed = await fetch(`${stack.url}/embed/v1/overlays?siteId=${site.siteId}&channelId=${channel}`);
    expect(embed.status).toBe(200);
    expect(embed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(embed.headers.get('x-frame-options')).toBeNull();
    expect(embed.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(embed.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await embed.text()).toContain('<script src="/sdk/v1/embed.js"></script>');

    for (const name of ['embed.js', 'player.js']) {
      const script = await fetch(`${stack.url}/sdk/v1/${name}`, { headers: { origin: 'https://customer.example' } });
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
      expect(script.headers.get('access-control-allow-origin')).toBe('*');
      const etag = script.headers.get('etag') as string;
      expect((await script.text()).length).toBeGreaterThan(500);
      expect((await fetch(`${stack.url}/sdk/v1/${name}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
  });

  it('answers 400 naming the field for a page without a site, and escapes what the demo echoes', async () => {
    for (const path of ['/embed/v1/overlays', '/embed/v1/demo', `/embed/v1/overlays?siteId=${site.siteId}&channelId=%3Cb%3E`]) {
      const reply = await rest(stack, 'GET', path);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: expect.stringMatching(/siteId|channelId/) });
    }
    const demo = await fetch(`${stack.url}/embed/v1/demo?siteId=${site.siteId}&channelId=${channel}`);
    expect(demo.status).toBe(200);
    const html = await demo.text();
    expect(html).toContain('<video');
    expect(html).toContain(`/embed/v1/overlays?siteId=${site.siteId}&amp;channelId=${channel}`);
  });
});

describe('live overlays in the embed', () => {
  it('shows a broadcast with its variables filled, its CTA as a button, and tells panels', async () => {
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    const overlayId = await createOverlay({
      name: 'Goal',
      contents: { html: '<p class="goal">Goal by <b>${player}</b> at {minute}\'</p>' },
      cta: { type: 'show_panel', data: 'panel-7' },
    });
    const { broadcastId } = await broadcast(overlayId, { channelId: channel, variables: { player: 'Ada', minute: '42' } });
    const element = await page.waitForSelector(overlayOf(broadcastId));
    expect(await element!.evaluate((node) => (node as HTMLElement).dataset.overlayId)).toBe(overlayId);
    expect(await page.$eval(`${overlayOf(broadcastId)} .goal`, (node) => node.textContent)).toBe("Goal by Ada at 42'");
    expect(await page.$eval(`${overlayOf(broadcastId)} button[data-cta="show_panel"]`, (node) => (node as HTMLElement).dataset.panelId)).toBe('panel-7');
    const shown = await page.evaluate(() => window.__shown);
    expect(shown).toEqual([expect.objectContaining({ origin: 'live', broadcastId, overlay: expect.objectContaining({ id: overlayId, name: 'Goal' }) })]);

    const login = await createOverlay({ name: 'Sign in', contents: { html: '<p>Members see more</p>' }, cta: { type: 'login', data: '/login' } });
    const share = await createOverlay({ name: 'Share', contents: { html: '<p>Tell a friend</p>' }, cta: { type: 'social_share', data: null } });
    const shownLogin = await broadcast(login, { channelId: channel });
    const shownShare = await broadcast(share, { channelId: channel });
    await page.waitForSelector(`${overlayOf(shownLogin.broadcastId)} button[data-cta="login"]`);
    await page.waitForSelector(`${overlayOf(shownShare.broadcastId)} button[data-cta="social_share"]`);
  });

  it('never runs script from a template or a variable', async () => {
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    const overlayId = await createOverlay({
      name: 'Hostile',
      contents: {
        html: [
          '<p class="ok">Score ${value}</p>',
          '<img src="/none.png" onerror="window.__pwned = \'onerror\'">',
          '<script>window.__pwned = "script"</script>',
          '<a id="js" href="javascript:window.__pwned=\'href\'">link</a>',
          '<svg><animate onbegin="window.__pwned=\'svg\'" attributeName="x" dur="1s"/></svg>',
          '<iframe srcdoc="<script>parent.__pwned=\'iframe\'</script>"></iframe>',
          '<form action="javascript:window.__pwned=\'form\'"><button>go</button></form>',
          '<div style="background:url(javascript:window.__pwned=\'css\')" onmouseover="window.__pwned=\'hover\'">hover</div>',
        ].join(''),
      },
    });
    const { broadcastId } = await broadcast(overlayId, { channelId: channel, variables: { value: '<img src=x onerror="window.__pwned=\'variable\'">' } });
    await page.waitForSelector(overlayOf(broadcastId));
    // The variable arrives escaped: it is text, not an element.
    expect(await page.$eval(`${overlayOf(broadcastId)} .ok`, (node) => node.textContent)).toBe('Score <img src=x onerror="window.__pwned=\'variable\'">');
    const inside = await page.$eval(overlayOf(broadcastId), (node) => {
      const all = [...node.querySelectorAll('*')];
      return {
        handlers: all.flatMap((el) => [...el.attributes].filter((attr) => attr.name.startsWith('on')).map((attr) => attr.name)),
        tags: all.map((el) => el.tagName.toLowerCase()),
        hrefs: all.map((el) => el.getAttribute('href')).filter((href) => href !== null),
      };
    });
    expect(inside.handlers).toEqual([]);
    expect(inside.tags).not.toEqual(expect.arrayContaining(['script']));
    expect(inside.tags.filter((tag) => ['script', 'iframe', 'form', 'animate'].includes(tag))).toEqual([]);
    expect(inside.hrefs.filter((href) => /javascript:/i.test(href as string))).toEqual([]);
    const link = await page.$(`${overlayOf(broadcastId)} #js`);
    if (link) await link.click();
    await page.hover(`${overlayOf(broadcastId)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  it('shows a show:overlay message of the right shape from any origin, sanitized, and ignores any other', async () => {
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    await page.evaluate(() => {
      const source = 'service:iframe:sdk:v1';
      const overlay = {
        id: 'msg-1',
        name: 'From a message',
        type: 'template',
        contents: { html: '<p class="m">hello<img src="/x.png" onerror="window.__pwned=1"></p>' },
        cta: null,
        duration: 5,
      };
      for (const wrong of [
        { source: 'elsewhere', action: 'show:overlay', data: { ...overlay, id: 'wrong-source' } },
        { source, action: 'show:everything', data: { ...overlay, id: 'wrong-action' } },
        { source, action: 'show:overlay', data: { ...overlay, id: 'no-duration', duration: 'long' } },
        { source, action: 'show:overlay', data: 'just a string' },
      ])
        window.postMessage(wrong, '*');
      window.postMessage({ source, action: 'show:overlay', data: overlay }, '*');
    });
    await page.waitForSelector('[data-overlay-id="msg-1"][data-origin="timecode"] .m');
    expect(await page.$$eval('[data-origin="timecode"][data-overlay-id]', (nodes) => nodes.map((node) => (node as HTMLElement).dataset.overlayId))).toEqual([
      'msg-1',
    ]);
    expect(await page.$eval('[data-overlay-id="msg-1"] img', (node) => node.getAttribute('onerror'))).toBeNull();
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  describe('the overlay in the REST form of seed 001 (GET /overlay/v1/{id}, its ID in _id)', () => {
    let customer: StaticSite;
    let resource: Record<string, unknown>;
    let overlayId: string;
    beforeAll(async () => {
      overlayId = await createOverlay({
        name: 'REST form',
        duration: 5,
        contents: { html: '<p class="rest">filled in</p>' },
        cta: { type: 'login', data: '/login' },
      });
      const reply = await rest(stack, 'GET', `/overlay/v1/${overlayId}`, { headers: site.admin });
      expect(reply.status).toBe(200);
      resource = reply.body;
      expect(resource).toMatchObject({ _id: overlayId, siteId: site.siteId, name: 'REST form' });
      expect(resource.id).toBeUndefined();
      // The site's own page on another origin, framing the embed in each mode.
      const frameOf = (mode: string) =>
        `<!doctype html><body><iframe id="frame" src="${stack.url}/embed/v1/overlays?siteId=${site.siteId}&channelId=${channel}&mode=${mode}"></iframe></body>`;
      customer = await startStaticSite({
        '/live.html': { type: 'text/html', body: frameOf('live') },
        '/timecode.html': { type: 'text/html', body: frameOf('timecode') },
      });
    });
    afterAll(async () => {
      await customer?.close();
    });

    /** Posts the seed's message with `data` from `from` to `to`, and waits for the embed to show it. */
    async function postAndWait(from: Page | Frame, embed: Page | Frame, data: unknown) {
      await from.evaluate((overlay) => {
        const target = document.getElementById('frame')?.contentWindow ?? window;
        target.postMessage({ source: 'service:iframe:sdk:v1', action: 'show:overlay', data: overlay }, '*');
      }, data);
      await embed.waitForSelector(`[data-origin="timecode"][data-overlay-id="${overlayId}"] .rest`);
      expect(await embed.$(`[data-overlay-id="${overlayId}"] button[data-cta="login"]`)).not.toBeNull();
      // Live broadcasts of earlier tests may be on the channel still: the message's event is the only timecode one.
      const events = await embed.evaluate(() => (window.__shown as { origin: string }[]).filter((shown) => shown.origin === 'timecode'));
      expect(events).toEqual([
        {
          origin: 'timecode',
          broadcastId: `timecode:${overlayId}`,
          overlay: {
            id: overlayId,
            name: 'REST form',
            type: 'template',
            contents: { html: '<p class="rest">filled in</p>' },
            cta: { type: 'login', data: '/login' },
            duration: 5,
          },
        },
      ]);
    }

    it.each(['live', 'timecode'])('is shown in %s mode, posted from the same origin', async (mode) => {
      const page = await openEmbed({ siteId: site.siteId, channelId: channel, mode });
      // Its ID twice and disagreeing: not an overlay.
      await page.evaluate(
        (overlay) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'show:overlay', data: { ...overlay, id: 'another' } }, '*'),
        resource,
      );
      await postAndWait(page, page, resource);
      expect(await page.$$eval('[data-origin="timecode"][data-overlay-id]', (nodes) => nodes.map((node) => (node as HTMLElement).dataset.overlayId))).toEqual([
        overlayId,
      ]);
    });

    it.each(['live', 'timecode'])('is shown in %s mode, posted by a parent page of another origin', async (mode) => {
      const page = await newPage();
      await page.goto(`${customer.url}/${mode}.html`);
      const frame = await (await page.$('#frame'))!.contentFrame();
      await waitInPage(frame, () => window.stagegraphEmbed?.connected === true);
      await postAndWait(page, frame, resource);
    });
  });

  it('takes an overlay down on CLEAR and when it expires', async () => {
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    const cleared = await broadcast(await createOverlay({ name: 'Cleared', contents: { html: '<p>until cleared</p>' } }), { channelId: channel });
    // 5 s: the push carries the time left, so a push slower than the duration (1 s once, on a loaded machine) would show nothing.
    const short = await broadcast(await createOverlay({ name: 'Short', duration: 5, contents: { html: '<p>five seconds</p>' } }), { channelId: channel });
    await page.waitForSelector(overlayOf(cleared.broadcastId));
    await page.waitForSelector(overlayOf(short.broadcastId));
    // The short one goes by itself, the other stays until the CLEAR.
    await waitShown(page, overlayOf(short.broadcastId), false, { timeout: 30_000 });
    expect(await page.$(overlayOf(cleared.broadcastId))).not.toBeNull();
    expect((await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin })).status).toBe(200);
    await waitShown(page, overlayOf(cleared.broadcastId), false);
  });

  it("shows its channel's and the site-wide broadcasts, never another channel's or another site's", async () => {
    const otherChannel = await createChannel(stack, site.siteId);
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    const overlayId = await createOverlay({ name: 'Routing', contents: { html: '<p>routed</p>' } });
    const theirOverlay = await createOverlay({ name: 'Theirs', contents: { html: '<p>theirs</p>' } }, other);
    const elsewhere = await broadcast(overlayId, { channelId: otherChannel });
    // Another site cannot target this site's channel at all (404), and its own channel's broadcast stays its own.
    expect((await rest(stack, 'POST', `/overlay/v1/broadcast/${theirOverlay}`, { headers: other.admin, body: { channelId: channel } })).status).toBe(404);
    const theirs = await broadcast(theirOverlay, { channelId: await createChannel(stack, other.siteId) }, other);
    const theirSiteWide = await broadcast(theirOverlay, {}, other);
    const siteWide = await broadcast(overlayId, {});
    const own = await broadcast(overlayId, { channelId: channel });
    await page.waitForSelector(overlayOf(siteWide.broadcastId));
    await page.waitForSelector(overlayOf(own.broadcastId));
    const state = await page.evaluate(() => window.stagegraphEmbed.received as string[]);
    for (const never of [elsewhere, theirs, theirSiteWide]) {
      expect(state).not.toContain(never.broadcastId);
      expect(await page.$(overlayOf(never.broadcastId))).toBeNull();
    }
    await rest(stack, 'POST', '/overlay/v1/clear-broadcast', { headers: site.admin });
  });

  it('gives a late joiner what is live, for the time left', async () => {
    // 15 s: still on when a page opened on a loaded machine subscribes (it was 3 s, which a slow page open outlived).
    const live = await broadcast(await createOverlay({ name: 'Late', duration: 15, contents: { html: '<p>already on</p>' } }), { channelId: channel });
    // The broadcast started before its answer: whatever this pause turns out to be on a loaded machine, the
    // joiner subscribes at least `elapsed` after the start, so at most 15 - elapsed seconds are left for it.
    const answeredAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const elapsed = (Date.now() - answeredAt) / 1000;
    const page = await openEmbed({ siteId: site.siteId, channelId: channel });
    await page.waitForSelector(overlayOf(live.broadcastId));
    const shownFor = await page.evaluate((id) => window.stagegraphEmbed.shownFor[id] as number, live.broadcastId);
    expect(shownFor).toBeGreaterThan(0);
    expect(shownFor).toBeLessThanOrEqual(15 - elapsed);
    // And it goes when its time is up, without a CLEAR.
    await waitShown(page, overlayOf(live.broadcastId), false, { timeout: 30_000 });
  });

  it('reconnects after the connection drops and shows what is live then, not what was cleared meanwhile', async () => {
    const proxy: TcpProxy = await startTcpProxy('127.0.0.1', stack.port);
    try {
      const page = await openEmbed({ siteId: site.siteId, channelId: channel }, `http://127.0.0.1:${proxy.port}`);
      const overlayId = await createOverlay({ name: 'Outage', contents: { html: '<p>through an outage</p>' } });
      const before = await broadcast(overlayId, { channelId: channel });
      await page.waitForSelector(overlayOf(before.broadcastId));
      await proxy.cut();
      await waitInPage(page, () => window.stagegraphEmbed.connected === false);
      await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
      const during = await broadcast(overlayId, { channelId: channel });
      await proxy.restore();
      // The embed retries with backoff of up to 15 s (embed/liveClient.ts): after the cut its next try may be that far off.
      await waitInPage(page, () => window.stagegraphEmbed.connections >= 2, { timeout: 60_000 });
      await page.waitForSelector(overlayOf(during.broadcastId));
      expect(await page.$(overlayOf(before.broadcastId))).toBeNull();
    } finally {
      await proxy.close();
      await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
    }
  }, 120_000);

  it('shows tag-targeted broadcasts to a viewer whose token carries the tag (query parameter or set:token message)', async () => {
    const viewerToken = await site.token([], ['vip']);
    const anonymous = await openEmbed({ siteId: site.siteId, channelId: channel });
    // A token the server refuses: the embed carries on as an anonymous viewer.
    const refused = await openEmbed({ siteId: site.siteId, channelId: channel, token: 'not-a-jwt' });
    const byQuery = await openEmbed({ siteId: site.siteId, channelId: channel, token: viewerToken });
    const byMessage = await openEmbed({ siteId: site.siteId, channelId: channel });
    await byMessage.evaluate((token) => window.postMessage({ source: 'service:iframe:sdk:v1', action: 'set:token', data: token }, '*'), viewerToken);
    await waitInPage(byMessage, () => window.stagegraphEmbed.connections >= 2 && window.stagegraphEmbed.connected);

    const overlayId = await createOverlay({ name: 'VIP', contents: { html: '<p>for VIPs</p>' } });
    const reply = await rest(stack, 'POST', `/broadcast/${overlayId}/tag/vip`, { headers: site.admin, body: { channelId: channel } });
    expect(reply.status).toBe(200);
    const marker = await broadcast(overlayId, { channelId: channel });
    await byQuery.waitForSelector(overlayOf(reply.body.broadcastId));
    await byMessage.waitForSelector(overlayOf(reply.body.broadcastId));
    for (const viewer of [anonymous, refused]) {
      await viewer.waitForSelector(overlayOf(marker.broadcastId));
      expect(await viewer.$(overlayOf(reply.body.broadcastId))).toBeNull();
    }
    await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
  });
});

describe('timecode: from a recording stream to the player helper on the site’s own page', () => {
  let provider: FakeStreamProvider;
  let customer: StaticSite;
  beforeAll(async () => {
    provider = await startFakeStreamProvider();
  });
  afterAll(async () => {
    await provider.close();
    await customer?.close();
  });

  it('stamps broadcasts with the second of the recording, answers the timeline, and the player shows them at that second of the video', async () => {
    const tcChannel = await createChannel(stack, site.siteId);
    const registered = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Timecode provider', urls: provider.urls(), accountCredentials: {}, useAccount: false },
    });
    expect(registered.status).toBe(201);
    const stream = await rest(stack, 'POST', '/stream/v1/', {
      headers: site.admin,
      body: { pageId: tcChannel, contractId: registered.body.id, fallbackImageUrl: 'https://img.fake.test/x.png' },
    });
    expect(stream.status).toBe(201);
    const overlayId = await createOverlay({
      name: 'Odds',
      duration: 2,
      contents: { html: '<p class="odds">${home} {odds}</p>' },
      cta: { type: 'show_panel', data: 'odds-panel' },
    });

    // Not recording yet: no timecode.
    expect((await broadcast(overlayId, { channelId: tcChannel, duration: 1 })).streamSecond).toBeNull();
    const startSent = Date.now();
    const started = await rest(stack, 'POST', `/stream/v1/${stream.body._id}/start`, { headers: site.admin });
    const startAnswered = Date.now();
    expect(started.status).toBe(200);
    const liveBroadcastId = started.body.liveBroadcastId as string;
    // Some seconds into the recording (how many exactly depends on the machine's load: measured, not assumed).
    await pause(2100);
    const sentAt = Date.now();
    const atTwo = await broadcast(overlayId, { channelId: tcChannel, variables: { home: 'Lions', odds: '2.5' } });
    const answeredAt = Date.now();
    const second = atTwo.streamSecond as number;
    expect(second).toBeGreaterThanOrEqual(Math.floor((sentAt - startAnswered) / 1000));
    expect(second).toBeLessThanOrEqual(Math.floor((answeredAt - startSent) / 1000));
    // For some viewers only: it carries its timecode, but stays off the recording's public timeline.
    const targeted = await rest(stack, 'POST', `/broadcast/${overlayId}/tag/vip`, { headers: site.admin, body: { channelId: tcChannel, duration: 1 } });
    expect(targeted.body.streamSecond).toBeGreaterThanOrEqual(second);
    // Site-wide broadcasts belong to no channel's recording.
    expect((await broadcast(overlayId, { duration: 1 })).streamSecond).toBeNull();

    // A viewer in timecode mode receives the live push but does not show it ahead of its own time.
    const held = await openEmbed({ siteId: site.siteId, channelId: tcChannel, mode: 'timecode' });
    await received(held, atTwo.broadcastId);
    const laterOverlayId = await createOverlay({ name: 'Later', duration: 2, contents: { html: '<p class="later">${home} {odds}</p>' } });
    const heldLater = await broadcast(laterOverlayId, { channelId: tcChannel, variables: { home: 'Later', odds: '9' } });
    await received(held, heldLater.broadcastId);
    expect(await held.$('[data-overlay-id]')).toBeNull();

    expect((await rest(stack, 'POST', `/stream/v1/${stream.body._id}/stop`, { headers: site.admin })).status).toBe(200);
    const vod = {
      streamId: stream.body.providerStreamId,
      liveBroadcastId,
      vodId: `vod-${liveBroadcastId}`,
      url: 'https://cdn.fake.test/vod.mp4',
      durationSeconds: 60,
    };
    const delivered = await rest(stack, 'POST', '/video/v3/vod', { headers: { Authorization: `Bearer ${registered.body.authorization}` }, body: vod });
    expect(delivered.status).toBe(200);

    const byBroadcast = await rest(stack, 'GET', `/overlay/v1/timeline?liveBroadcastId=${liveBroadcastId}`, {
      headers: { 'x-service-client-id': site.siteId },
    });
    expect(byBroadcast.status).toBe(200);
    expect(byBroadcast.headers.get('access-control-allow-origin')).toBe('*');
    expect(byBroadcast.body).toEqual([
      {
        second,
        overlay: expect.objectContaining({
          _id: overlayId,
          id: overlayId,
          name: 'Odds',
          duration: 2,
          contents: expect.objectContaining({ html: '<p class="odds">Lions 2.5</p>' }),
        }),
      },
      {
        second: expect.any(Number),
        overlay: expect.objectContaining({
          _id: laterOverlayId,
          id: laterOverlayId,
          contents: expect.objectContaining({ html: '<p class="later">Later 9</p>' }),
        }),
      },
    ]);
    const byVideo = await rest(stack, 'GET', `/overlay/v1/timeline?videoId=${delivered.body.videoId}`, { headers: { 'x-service-client-id': site.siteId } });
    expect(byVideo.body).toEqual(byBroadcast.body);
    expect(
      (await rest(stack, 'GET', `/overlay/v1/timeline?videoId=${delivered.body.videoId}`, { headers: { 'x-service-client-id': other.siteId } })).status,
    ).toBe(404);
    expect(
      (await rest(stack, 'GET', `/overlay/v1/timeline?liveBroadcastId=${liveBroadcastId}`, { headers: { 'x-service-client-id': other.siteId } })).body,
    ).toEqual([]);
    const neither = await rest(stack, 'GET', '/overlay/v1/timeline', { headers: { 'x-service-client-id': site.siteId } });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toMatch(/liveBroadcastId/);
    const preflight = await fetch(`${stack.url}/overlay/v1/timeline`, {
      method: 'OPTIONS',
      headers: { origin: 'https://customer.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-service-client-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-service-client-id');

    // The site's own page, on another origin: its video, the embed in timecode mode, the player helper.
    customer = await startWatchPage(stack.url, `${stack.url}/embed/v1/overlays?siteId=${site.siteId}&channelId=${tcChannel}&mode=timecode`);
    const page = await newPage();
    await page.goto(`${customer.url}/watch.html`);
    await waitInPage(page, () => document.getElementById('video').readyState >= 1);
    const frame = await (await page.$('#frame'))!.contentFrame();
    await waitInPage(frame, () => window.stagegraphEmbed?.connected === true);
    const timeline = await page.evaluate(
      async (siteId, videoId) => {
        const handle = window.stagegraph.attachTimecodeOverlays({
          video: document.getElementById('video'),
          frame: document.getElementById('frame'),
          siteId,
          videoId,
        });
        return handle.ready;
      },
      site.siteId,
      delivered.body.videoId,
    );
    expect(timeline).toHaveLength(2);

    const seek = (seconds: number) =>
      page.evaluate((to) => {
        document.getElementById('video').currentTime = to;
      }, seconds);
    const timecodeShows = () =>
      frame.evaluate(
        (id) =>
          (window.__shown as { origin: string; overlay: { id: string } }[]).filter((shown) => shown.origin === 'timecode' && shown.overlay.id === id).length,
        overlayId,
      );

    await seek(second - 0.8);
    await pause(300);
    expect(await timecodeShows()).toBe(0);
    await seek(second + 0.4);
    const shown = await frame.waitForSelector(`[data-origin="timecode"][data-overlay-id="${overlayId}"] .odds`);
    expect(await shown!.evaluate((node) => node.textContent)).toBe('Lions 2.5');
    expect(await frame.$('[data-origin="timecode"] button[data-cta="show_panel"][data-panel-id="odds-panel"]')).not.toBeNull();
    expect(await timecodeShows()).toBe(1);
    // Shown for the overlay's duration (2 s), then gone.
    await waitShown(frame, `[data-origin="timecode"][data-overlay-id="${overlayId}"]`, false, { timeout: 30_000 });

    // A seek back, then playing on through that second: shown again at the same second of the video.
    await seek(second - 0.5);
    await page.evaluate(() => document.getElementById('video').play());
    await frame.waitForSelector('[data-origin="timecode"] .odds', { timeout: 30_000 });
    expect(await timecodeShows()).toBe(2);
    await page.evaluate(() => document.getElementById('video').pause());
    // Live pushes stayed held back throughout.
    expect(await frame.$('[data-origin="live"]')).toBeNull();
  });
});

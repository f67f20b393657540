/**
 * The watch page (`/embed/v1/watch`) in headless Chromium against the real stack, playing real video: a
 * recording made by ffmpeg (H.264 HLS) served by a CDN stand-in on loopback, delivered by a fake
 * provider as a show's VOD and set as the channel's offline video, as the content check offers videos.
 * The page plays it with hls.js and its time advances; the overlays broadcast while the show recorded
 * appear at their seconds of the video; the channel's chat panel sits beside it. A gated channel shows
 * the check's refusal in place of the video, with no URL of it in the page and nothing asked of the CDN;
 * the viewer holding the entitlement, or the password, plays it. A CDN outage is waited out: the video is
 * loaded again with backoff and plays once the CDN is back. The demo path serves the same page.
 */
import { startStaticSite, waitInPage } from '../helpers/browser';
import { createChatPanel } from '../helpers/chat';
import { graphql, rest } from '../helpers/http';
import { broadcastTo, createOverlay, createShowStream, deliverRecording, startRecording, stopRecording } from '../helpers/watchShow';
import { createTestSite, grantEntitlement } from '../helpers/stack';
import { until } from '../helpers/wait';
import { messageOf, overlayModeOf, sourceOf, timecodeOverlays, untilAdvancing, untilView, watchTestbed } from '../helpers/watchPage';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

const bed = watchTestbed('Watch site');

let count = 0;
async function createPage(data: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await rest(bed.stack, 'POST', '/pages/v3', {
    headers: bed.site.admin,
    body: { slug: `watch-${++count}`, type: 'channel', data: { name: `Channel ${count}`, ...data }, ...extra },
  });
  expect(reply.status).toBe(200);
  return reply.body._id;
}

/** A Video of the site at `url` (the provider's delivery, through GraphQL as an admin's tool would). */
async function videoAt(pageId: string, url: string): Promise<string> {
  const reply = await graphql(
    bed.stack,
    /* GraphQL */ `mutation($input: RecordVodInput!) { recordVod(input: $input) { id } }`,
    { input: { pageId, vodId: `vod-${pageId}-${++count}`, url, durationSeconds: 10 } },
    bed.site.admin,
  );
  return reply.body.data!.recordVod.id;
}

describe('a recording with its overlays and chat', () => {
  it('plays the recording with hls.js, shows the overlays of its timeline at their seconds, and the chat panel beside it', async () => {
    const channelId = await createPage({});
    const stream = await createShowStream(bed.stack, bed.site, bed.provider, channelId);
    const [early, late] = [await createOverlay(bed.stack, bed.site, 'Kick-off', 2), await createOverlay(bed.stack, bed.site, 'Goal', 2)];
    const liveBroadcastId = await startRecording(bed.stack, bed.site, stream);
    const startedAt = Date.now();
    const first = await broadcastTo(bed.stack, bed.site, early, channelId);
    // Three seconds on, so the second overlay is far into the video from the first (its second is measured).
    await until(
      () => Date.now(),
      (now) => now >= startedAt + 3100,
      'three seconds of recording',
    );
    const second = await broadcastTo(bed.stack, bed.site, late, channelId);
    await stopRecording(bed.stack, bed.site, stream);
    expect(second.streamSecond! - first.streamSecond!).toBeGreaterThanOrEqual(2);
    const videoId = await deliverRecording(bed.stack, stream, liveBroadcastId, bed.cdn.vodUrl, 10);

    const poster = await rest(bed.stack, 'POST', '/panel/v3/', {
      headers: bed.site.admin,
      body: { siteId: bed.site.siteId, renderer: { panel_type: 'image', panel_name: 'Poster', image_url: 'https://img.example/poster.png' } },
    });
    const chatPanel = await createChatPanel(bed.stack, bed.site);
    const update = await rest(bed.stack, 'PUT', `/pages/v3/${channelId}`, {
      headers: bed.site.admin,
      body: {
        data: { name: 'Final replay', content: { offline: { kind: 'video', video: { _id: videoId } } } },
        renderers: {
          sidebar: {
            items: [
              { array_id: 'poster', id: poster.body._id },
              { array_id: 'chat', id: chatPanel },
            ],
          },
        },
      },
    });
    expect(update.status).toBe(200);

    const { page } = await bed.open(channelId);
    await untilView(page, 'video');
    await untilAdvancing(page);
    expect(await page.evaluate(() => window.stagegraphWatch.player.engine)).toBe('hls.js');
    expect(await sourceOf(page)).toBe('vod');
    expect(bed.cdn.requests).toEqual(expect.arrayContaining(['/vod/out.m3u8', '/vod/out0.ts']));

    // Each overlay at its second of the video, in the order broadcast, never before its second (and not
    // long after: a second of timeupdate spacing, and room for a loaded machine).
    // (The layer shows live pushes until the page knows it plays a recording: the last one may still be live.)
    const seen = await until(
      () => timecodeOverlays(page),
      (list) => [early, late].every((id) => list.some((entry) => entry.id === id)),
      'both overlays shown',
      60_000,
    );
    expect(seen.map((entry) => entry.id).slice(0, 2)).toEqual([early, late]);
    for (const [entry, { streamSecond }] of [
      [seen[0], first],
      [seen[1], second],
    ] as const) {
      expect(entry.at).toBeGreaterThanOrEqual(streamSecond!);
      expect(entry.at).toBeLessThan(streamSecond! + 3);
    }
    expect(await overlayModeOf(page)).toBe('timecode');

    // The channel's first chat panel (not the poster before it), connected beside the video.
    expect(await page.evaluate(() => window.stagegraphWatch.chatPanelId)).toBe(chatPanel);
    const chatSrc = await page.$eval('#sg-watch-chat:not([hidden]) iframe', (node: any) => node.src);
    expect(new URL(chatSrc).pathname).toBe('/embed/v1/chat');
    expect(Object.fromEntries(new URL(chatSrc).searchParams)).toEqual({ siteId: bed.site.siteId, panelId: chatPanel });
    const chat = await (await page.$('#sg-watch-chat iframe'))!.contentFrame();
    await waitInPage(chat, () => window.stagegraphChat?.connected === true);
    expect(await page.$eval('#sg-watch-title', (node: any) => node.textContent)).toBe('Final replay');
  }, 180_000);
});

describe('a CDN outage', () => {
  it('loads the video again with backoff while its CDN is down, and plays once it is back', async () => {
    const holder = await createPage({});
    const videoId = await videoAt(holder, bed.cdn.vodUrl);
    const channelId = await createPage({ content: { offline: { kind: 'video', video: { _id: videoId } } } });
    bed.cdn.down = true;
    try {
      const { page } = await bed.open(channelId);
      await untilView(page, 'video');
      await until(
        () => page.evaluate(() => window.stagegraphWatch.player.reloads),
        (reloads) => reloads >= 2,
        'the video loaded again',
      );
      expect(await sourceOf(page)).toBe('vod');
      bed.cdn.down = false;
      await untilAdvancing(page);
    } finally {
      bed.cdn.down = false;
    }
  }, 120_000);
});

describe('a refusal in place of the video', () => {
  it('shows a gated channel’s refusal with no URL of its video in the page or asked of the CDN, and plays it for the ticket holder', async () => {
    const holder = await createPage({});
    const gatedUrl = `${bed.cdn.url}/vod/out.m3u8?gated=${++count}`;
    const videoId = await videoAt(holder, gatedUrl);
    const channelId = await createPage({
      gate: { active: true, kind: 'subscription', gate: { subscriptions: ['season-pass'], title: 'Get a ticket' } },
      content: { offline: { kind: 'video', video: { _id: videoId } } },
    });
    const cdnAsked = bed.cdn.requests.length;

    const { page, requested } = await bed.open(channelId);
    await untilView(page, 'refused');
    const refusal = await page.$eval('#sg-watch-refusal', (node: any) => ({ hidden: node.hidden, type: node.dataset.errorType, text: node.textContent }));
    expect(refusal).toEqual({ hidden: false, type: 'entitlement_required', text: expect.stringContaining('season-pass') });
    expect(refusal.text).toContain('A ticket is needed to watch');
    expect(await page.$eval('#player', (node: any) => node.getAttribute('src'))).toBeNull();
    expect(await sourceOf(page)).toBeNull();
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    expect(html).not.toContain(bed.cdn.url);
    expect(html).not.toContain('gated=');
    expect(requested.filter((url) => url.startsWith(bed.cdn.url))).toEqual([]);
    expect(bed.cdn.requests.length).toBe(cdnAsked);

    const { accountId, token } = await bed.site.signIn([]);
    await grantEntitlement(bed.stack, bed.site.siteId, accountId, 'season-pass');
    const holderView = await bed.open(channelId, { token });
    await untilView(holderView.page, 'video');
    await untilAdvancing(holderView.page);
    expect(holderView.requested.some((url) => url === gatedUrl)).toBe(true);
  }, 120_000);

  it('plays for the viewer whose token the site’s own page hands over (framed on another origin)', async () => {
    const holder = await createPage({});
    const videoId = await videoAt(holder, bed.cdn.vodUrl);
    const channelId = await createPage({
      gate: { active: true, kind: 'subscription', gate: { subscriptions: ['framed-pass'] } },
      content: { offline: { kind: 'video', video: { _id: videoId } } },
    });
    const watchUrl = `${bed.stack.url}/embed/v1/watch?siteId=${bed.site.siteId}&channelId=${channelId}`;
    const customer = await startStaticSite({
      '/show.html': { type: 'text/html', body: `<!doctype html><body><iframe id="watch" src="${watchUrl}" allow="autoplay"></iframe></body>` },
    });
    try {
      const { page } = await bed.openUrl(`${customer.url}/show.html`);
      const frame = await (await page.waitForSelector('#watch'))!.contentFrame();
      const view = () => frame.evaluate(() => document.getElementById('sg-watch').dataset.state);
      await until(view, (state) => state === 'refused', 'the framed page refusing');
      const { accountId, token } = await bed.site.signIn([]);
      await grantEntitlement(bed.stack, bed.site.siteId, accountId, 'framed-pass');
      await page.evaluate(
        (jwt: string) => document.getElementById('watch').contentWindow.postMessage({ source: 'service:iframe:sdk:v1', action: 'set:token', data: jwt }, '*'),
        token,
      );
      await until(view, (state) => state === 'video', 'the framed page playing for the viewer');
      const from = await frame.evaluate(() => document.getElementById('player').currentTime);
      await until(
        () => frame.evaluate(() => document.getElementById('player').currentTime),
        (time) => time > from + 1,
        'the framed video playing',
        60_000,
      );
    } finally {
      await customer.close();
    }
  }, 120_000);

  it('asks for a password gate’s password, says when it is wrong, and plays with the right one', async () => {
    const holder = await createPage({});
    const videoId = await videoAt(holder, bed.cdn.vodUrl);
    const channelId = await createPage({
      gate: { active: true, kind: 'password', gate: { password: 'open sesame' } },
      content: { offline: { kind: 'video', video: { _id: videoId } } },
    });
    const { page } = await bed.open(channelId);
    await untilView(page, 'refused');
    expect(await page.$eval('#sg-watch-refusal', (node: any) => node.dataset.errorType)).toBe('gate_password');
    expect(await page.$eval('#sg-watch-password', (node: any) => node.hidden)).toBe(false);
    const checks = await page.evaluate(() => window.stagegraphWatch.checks);
    await page.type('#sg-watch-password input', 'guess');
    await page.click('#sg-watch-password button');
    await until(
      () => page.evaluate(() => window.stagegraphWatch.checks),
      (value) => value > checks,
      'the check asked again',
    );
    expect(await page.$eval('#sg-watch-refusal-message', (node: any) => node.textContent)).toBe('the channel password is wrong');
    await page.$eval('#sg-watch-password input', (node: any) => (node.value = ''));
    await page.type('#sg-watch-password input', 'open sesame');
    await page.click('#sg-watch-password button');
    await untilView(page, 'video');
    await untilAdvancing(page);
  }, 120_000);

  it('asks a signed-out viewer of a members-only channel to sign in (the page around it is told), and one whose token is refused', async () => {
    const channelId = await createPage({ gate: { active: true, kind: 'login' } });
    const { page } = await bed.open(channelId);
    await untilView(page, 'refused');
    expect(await page.$eval('#sg-watch-refusal h2', (node: any) => node.textContent)).toBe('Sign in to watch');
    await page.click('#sg-watch-login');
    await until(
      () => page.evaluate(() => window.posted),
      (posted: any[]) => posted.some((data) => data?.action === 'login'),
      'the login message',
    );

    const signedIn = await bed.open(channelId, { token: await bed.site.token([]) });
    await untilView(signedIn.page, 'offline');
    expect(await messageOf(signedIn.page)).toBe('This channel is offline');

    // A token the server refuses (401): the viewer carries on signed out, and is asked to sign in.
    const refusedToken = await bed.open(channelId, { token: 'not-a-jwt' });
    await untilView(refusedToken.page, 'refused');
    expect(await refusedToken.page.$eval('#sg-watch-login', (node: any) => node.hidden)).toBe(false);
  });
});

describe('the page itself', () => {
  it('is served at the watch and demo paths with the embed’s headers, and answers 400 naming a missing ID', async () => {
    const channelId = await createPage({});
    for (const path of ['/embed/v1/watch', '/embed/v1/demo']) {
      const reply = await fetch(`${bed.stack.url}${path}?siteId=${bed.site.siteId}&channelId=${channelId}`);
      expect(reply.status).toBe(200);
      const csp = reply.headers.get('content-security-policy')!;
      for (const part of ["script-src 'self'", 'frame-ancestors *', "connect-src 'self' http: https:", 'media-src http: https: blob:', 'worker-src blob:'])
        expect(csp).toContain(part);
      expect(reply.headers.get('x-frame-options')).toBeNull();
      const html = await reply.text();
      expect(html).toContain('<script src="/sdk/v1/watch.js"></script>');
      expect(html).toContain(`/embed/v1/overlays?siteId=${bed.site.siteId}&amp;channelId=${channelId}`);
    }
    const script = await fetch(`${bed.stack.url}/sdk/v1/watch.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('access-control-allow-origin')).toBe('*');
    for (const [query, field] of [
      ['', 'siteId'],
      [`?siteId=${bed.site.siteId}`, 'channelId'],
      [`?siteId=${bed.site.siteId}&channelId=%3Cb%3E`, 'channelId'],
    ]) {
      const reply = await rest(bed.stack, 'GET', `/embed/v1/watch${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: expect.stringContaining(field) });
    }
  });

  it('says a channel of another site is not available, and shows nothing of it', async () => {
    const other = await createTestSite(bed.stack, 'Other site');
    const theirs = await rest(bed.stack, 'POST', '/pages/v3', {
      headers: other.admin,
      body: { slug: 'theirs', type: 'channel', data: { name: 'Their secret show' } },
    });
    const { page } = await bed.open(theirs.body._id);
    await untilView(page, 'unavailable');
    expect(await messageOf(page)).toBe('This channel is not available');
    expect(await page.evaluate(() => document.body.textContent)).not.toContain('Their secret show');
  });
});

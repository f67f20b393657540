/**
 * The watch page through a show, in headless Chromium against the real stack: a fake provider's stream
 * plays live HLS from a CDN stand-in (ffmpeg's test pattern, a live playlist that moves on every second),
 * and its webhooks drive the channel's show (contract: `channelStatus`, docs/design.md "The show"). The page says
 * the show is starting, plays the live stream with hls.js and the live overlays over it, keeps the player
 * while reconnecting, says the show has ended and then plays its recording with the timeline's overlays at
 * their seconds. Before a show it counts down to the start. A gated channel shows the check's refusal while
 * live, and its stream's URL reaches that viewer nowhere: not the check, not the push, not the page, not
 * the CDN; the ticket holder plays it. Without WebSocket the status comes over SSE.
 */
import type { Page } from 'puppeteer-core';
import { rest } from '../helpers/http';
import {
  broadcastTo,
  createOverlay,
  createShowStream,
  deliverRecording,
  sendWebhook,
  startRecording,
  stopRecording,
  type ShowStream,
  type WebhookType,
} from '../helpers/watchShow';
import { grantEntitlement } from '../helpers/stack';
import { until } from '../helpers/wait';
import { messageOf, overlayModeOf, sourceOf, timecodeOverlays, untilAdvancing, untilView, watchTestbed } from '../helpers/watchPage';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

const bed = watchTestbed('Live watch site', { vodSeconds: 30, liveSeconds: 20 });

let count = 0;
/** A channel with the admin's live switch on (published), whose stream plays `playbackUrl`. */
async function showChannel(data: Record<string, unknown>, playbackUrl = bed.cdn.liveUrl): Promise<{ channelId: string; stream: ShowStream }> {
  const reply = await rest(bed.stack, 'POST', '/pages/v3', {
    headers: bed.site.admin,
    body: {
      slug: `show-${++count}`,
      type: 'channel',
      data: { name: `Show ${count}`, ...data },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  expect(reply.status).toBe(200);
  const channelId = reply.body._id as string;
  return { channelId, stream: await createShowStream(bed.stack, bed.site, bed.provider, channelId, playbackUrl) };
}

/** Webhooks in the provider's order, each later than the one before (the latest `time` wins). */
let lastTime = 0;
function webhook(stream: ShowStream, type: WebhookType): Promise<void> {
  lastTime = Math.max(Date.now(), lastTime + 1);
  return sendWebhook(bed.stack, stream, type, lastTime);
}

describe('a show from start to recording', () => {
  it('says starting, plays live with live overlays, keeps playing while reconnecting, then says ended and plays the recording with its overlays at their seconds', async () => {
    const { channelId, stream } = await showChannel({ content: { offline: { kind: 'recording' } } });
    const { page } = await bed.open(channelId);
    await untilView(page, 'offline', 'OFFLINE');
    expect(await messageOf(page)).toBe('This channel is offline');

    await webhook(stream, 'connected');
    await untilView(page, 'starting', 'STARTING');
    expect(await messageOf(page)).toBe('The show is starting…');

    const liveBroadcastId = await startRecording(bed.stack, bed.site, stream);
    await webhook(stream, 'active');
    await untilView(page, 'live', 'LIVE');
    expect(await page.evaluate(() => window.stagegraphWatch.status)).toMatchObject({
      channelId,
      state: 'LIVE',
      live: true,
      liveBroadcastId,
      playbackUrl: bed.cdn.liveUrl,
    });
    await until(
      () => sourceOf(page),
      (source) => source === 'live',
      'the live stream in the player',
    );
    await untilAdvancing(page);
    expect(await page.evaluate(() => window.stagegraphWatch.player.engine)).toBe('hls.js');
    expect(bed.cdn.requests).toContain('/live/index.m3u8');
    expect(await page.$eval('#sg-watch-status', (node: any) => node.textContent)).toBe('Live');

    // A live push shows over the live video at once.
    const overlayId = await createOverlay(bed.stack, bed.site, 'Goal', 3);
    const goal = await broadcastTo(bed.stack, bed.site, overlayId, channelId);
    expect(goal.streamSecond).not.toBeNull();
    await until(
      () => page.evaluate(() => window.__overlaysSeen ?? []),
      (seen: any[]) => seen.some((entry) => entry.id === overlayId && entry.origin === 'live'),
      'the live overlay',
    );
    expect(await overlayModeOf(page)).toBeNull();

    // The encoder drops: the same player stays and plays on (the provider's fallback in the same stream).
    await webhook(stream, 'disconnected');
    await untilView(page, 'reconnecting', 'RECONNECTING');
    expect(await messageOf(page)).toBe('Reconnecting…');
    expect(await sourceOf(page)).toBe('live');
    await untilAdvancing(page);
    await webhook(stream, 'active');
    await untilView(page, 'live', 'LIVE');
    expect(await messageOf(page)).toBeNull();

    // The show ends: said at once; the recording plays once the provider delivers it.
    await stopRecording(bed.stack, bed.site, stream);
    await webhook(stream, 'disconnected');
    await webhook(stream, 'idle');
    await untilView(page, 'ended', 'ENDED');
    expect(await messageOf(page)).toBe('The show has ended');
    expect(await sourceOf(page)).toBeNull();
    const videoId = await deliverRecording(bed.stack, stream, liveBroadcastId, bed.cdn.vodUrl, 30);
    await until(
      () => page.evaluate(() => window.stagegraphWatch.status?.recordingVideoId),
      (id) => id === videoId,
      'the recording in the status',
    );
    await until(
      () => sourceOf(page),
      (source) => source === 'vod',
      'the recording in the player',
    );
    expect(await page.$eval('#sg-watch-note', (node: any) => node.textContent)).toBe('The show has ended — playing its recording');
    expect(await overlayModeOf(page)).toBe('timecode');
    await untilAdvancing(page);

    // Just before the goal's second of the recording, then playing on through it: shown at that second.
    await page.evaluate((to: number) => (document.getElementById('player').currentTime = to), Math.max(0, goal.streamSecond! - 0.5));
    const shown = await until(
      () => timecodeOverlays(page),
      (seen) => seen.some((entry) => entry.id === overlayId),
      'the goal at its second of the recording',
      60_000,
    );
    const at = shown.find((entry) => entry.id === overlayId)!.at;
    expect(at).toBeGreaterThanOrEqual(goal.streamSecond!);
    // Timeupdates come every quarter second; room for a loaded machine.
    expect(at).toBeLessThan(goal.streamSecond! + 3);
  }, 240_000);
});

describe('before a show', () => {
  it('counts down to the start, with its title, ticking', async () => {
    const startsAt = Date.now() + 3_600_000;
    const { channelId } = await showChannel({ countdown: { title: 'The final', start_time: startsAt } });
    const { page } = await bed.open(channelId);
    await untilView(page, 'countdown', 'OFFLINE');
    expect(await page.evaluate(() => window.stagegraphWatch.status.countdown)).toEqual({ title: 'The final', startsAt });
    const countdown = () =>
      page.$eval('#sg-watch-countdown', (node: any) => ({
        hidden: node.hidden,
        startsAt: Number(node.dataset.startsAt),
        title: node.querySelector('[data-countdown-title]').textContent,
        left: node.querySelector('[data-countdown-left]').textContent,
      }));
    const first = await countdown();
    expect(first).toEqual({ hidden: false, startsAt, title: 'The final', left: expect.stringMatching(/^Starts in (01:00:00|59:\d\d)$/) });
    await until(countdown, (now) => now.left !== first.left && /^Starts in 59:\d\d$/.test(now.left), 'the countdown ticking');
    expect(await sourceOf(page)).toBeNull();
  }, 120_000);
});

describe('a gated show', () => {
  it('refuses a viewer without the ticket while live with no URL of the stream anywhere, and plays it for the ticket holder', async () => {
    const gatedUrl = `${bed.cdn.liveUrl}?gated=${++count}`;
    const { channelId, stream } = await showChannel(
      { gate: { active: true, kind: 'subscription', gate: { subscriptions: ['final-pass'], title: 'Get a ticket' } } },
      gatedUrl,
    );
    await webhook(stream, 'connected');
    await webhook(stream, 'active');

    // Everything the refused viewer's page receives: HTTP answers and socket frames.
    const received: string[] = [];
    const record = async (page: Page) => {
      const session = await page.createCDPSession();
      await session.send('Network.enable');
      session.on('Network.webSocketFrameReceived', (event: any) => received.push(event.response.payloadData));
      page.on(
        'response',
        (response) =>
          void response.text().then(
            (text) => received.push(text),
            () => undefined,
          ),
      );
    };
    const { page, requested } = await bed.open(channelId, { before: record });
    await untilView(page, 'refused', 'LIVE');
    expect(await page.$eval('#sg-watch-refusal', (node: any) => node.dataset.errorType)).toBe('entitlement_required');
    expect(await page.evaluate(() => window.stagegraphWatch.status)).toMatchObject({ state: 'LIVE', live: true, playbackUrl: null });
    expect(received.some((text) => text.includes('channelStatus'))).toBe(true);
    expect(received.filter((text) => text.includes('gated='))).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.outerHTML)).not.toContain('gated=');
    expect(requested.filter((url) => url.includes('gated='))).toEqual([]);
    expect(bed.cdn.requests.filter((path) => path.includes('gated'))).toEqual([]);

    const { accountId, token } = await bed.site.signIn([]);
    await grantEntitlement(bed.stack, bed.site.siteId, accountId, 'final-pass');
    const holder = await bed.open(channelId, { token });
    await untilView(holder.page, 'live', 'LIVE');
    await until(
      () => sourceOf(holder.page),
      (source) => source === 'live',
      'the live stream in the player',
    );
    await untilAdvancing(holder.page);
    expect(holder.requested).toContain(gatedUrl);
  }, 120_000);
});

describe('without WebSocket', () => {
  it('follows the show over Server-Sent Events', async () => {
    const { channelId, stream } = await showChannel({});
    const { page } = await bed.open(channelId, { withoutWebSocket: true });
    await untilView(page, 'offline', 'OFFLINE');
    expect(await page.evaluate(() => window.stagegraphWatch.transport)).toBe('sse');
    await webhook(stream, 'connected');
    await webhook(stream, 'active');
    await untilView(page, 'live', 'LIVE');
    await untilAdvancing(page);
  }, 120_000);
});

/**
 * The overlay embed without WebSockets, in headless Chromium against the real stack: with WebSocket
 * missing from the page, with a WebSocket whose constructor throws (as under a CSP without ws:), and
 * behind an HTTP proxy that refuses upgrades (as some corporate proxies do), the embed falls back to
 * Server-Sent Events within 10 s — live overlays arrive (the ones already live at once),
 * poll answers are sent and stored, the results follow — and the page shows exactly what it shows over
 * the socket.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, waitInPage } from '../helpers/browser';
import { viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { refuseSockets } from '../helpers/pageSockets';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

declare const window: any;
declare const document: any;

let stack: Stack;
let site: TestSite;
let channel: string;
let browser: Browser;
let proxy: Server;
let proxyUrl: string;
const pages: Page[] = [];

/** An HTTP proxy that passes requests on (streaming both ways) and refuses every WebSocket upgrade. */
function startUpgradeRefusingProxy(target: number): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: target, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  server.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack, 'No-socket site');
  channel = await createChannel(stack, site.siteId);
  proxy = await startUpgradeRefusingProxy(stack.port);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
});
afterAll(async () => {
  await browser?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await stopAll();
});

/** How a test keeps the socket from opening (null: it opens). */
type Without = 'websocket' | 'throwing' | 'upgrade' | null;

/**
 * The embed of the channel; `without` says how the socket is kept from opening. Returns the page and
 * how long after navigation it was first seen connected (ms).
 */
async function openEmbedTimed(without: Without, token?: string): Promise<{ page: Page; connectedAtMs: number }> {
  const page = await browser.newPage();
  pages.push(page);
  if (without === 'websocket') await page.evaluateOnNewDocument(() => delete window.WebSocket);
  if (without === 'throwing') await page.evaluateOnNewDocument(refuseSockets);
  const query = new URLSearchParams({ siteId: site.siteId, channelId: channel, ...(token ? { token } : {}) });
  await page.goto(`${without === 'upgrade' ? proxyUrl : stack.url}/embed/v1/overlays?${query.toString()}`);
  const connected = await waitInPage(page, () => window.stagegraphEmbed?.connected === true && performance.now(), { timeout: 60_000 });
  return { page, connectedAtMs: (await connected.jsonValue()) as number };
}

const openEmbed = async (without: Without, token?: string) => (await openEmbedTimed(without, token)).page;

async function broadcast(body: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await rest(stack, 'POST', '/overlay/v1', { headers: site.admin, body: { name: 'Overlay', type: 'template', duration: 60, ...body } });
  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${created.body._id}`, { headers: site.admin, body: { channelId: channel, ...extra } });
  expect(sent.status).toBe(200);
  return sent.body.broadcastId;
}

/** The overlay element of a broadcast as the viewer sees it (its markup). */
const shownMarkup = (page: Page, broadcastId: string) =>
  page.waitForSelector(`[data-broadcast-id="${broadcastId}"]`).then(() => page.$eval(`[data-broadcast-id="${broadcastId}"]`, (node: any) => node.outerHTML));

it.each([
  ['WebSocket is missing from the page', 'websocket'],
  ['the page’s WebSocket throws (a CSP without ws:)', 'throwing'],
  ['a proxy refuses the upgrade', 'upgrade'],
] as const)(
  'when %s, overlays arrive over SSE within 10 s, the live ones at once, as they look over the socket',
  async (_name, without) => {
    const early = await broadcast({ contents: { html: '<p class="early">Already live</p>' } });
    const { page, connectedAtMs } = await openEmbedTimed(without);
    expect(connectedAtMs).toBeLessThan(10_000);
    const socketPage = await openEmbed(null);
    expect(await page.evaluate(() => window.stagegraphEmbed.transport)).toBe('sse');
    expect(await socketPage.evaluate(() => window.stagegraphEmbed.transport)).toBe('websocket');
    expect(await shownMarkup(page, early)).toBe(await shownMarkup(socketPage, early));

    const later = await broadcast({ contents: { html: '<p class="later">Now</p>' }, cta: { type: 'social_share', data: null } });
    expect(await shownMarkup(page, later)).toBe(await shownMarkup(socketPage, later));
    await rest(stack, 'POST', `/overlay/v1/clear-broadcast/${channel}`, { headers: site.admin });
    // The CLEAR itself, or, should the stream have dropped meanwhile, the live state after the embed's reconnect
    // (its backoff reaches 15 s, embed/liveClient.ts): either way nothing is left.
    await waitInPage(page, () => document.querySelectorAll('[data-broadcast-id]').length === 0, { timeout: 60_000 });
    // The page fell back once: one SSE connection, however late the socket given up reports its last attempt.
    expect(await page.evaluate(() => window.stagegraphEmbed.connections)).toBe(1);
  },
  180_000,
);

it('a signed-in viewer without WebSocket answers a poll: stored, and the results follow', async () => {
  const poll = await rest(stack, 'POST', '/poll/v3/', {
    headers: site.admin,
    body: {
      type: 'poll',
      name: 'Colours',
      question: 'Which?',
      answers: [
        { id: 'red', text: 'Red' },
        { id: 'blue', text: 'Blue' },
      ],
    },
  });
  const pollId = poll.body._id as string;
  const me = await site.signIn([]);
  const page = await openEmbed('websocket', me.token);
  const broadcastId = await broadcast({ contents: { html: '<p>Vote</p>' }, cta: { type: 'poll', data: pollId } });
  const scope = `[data-broadcast-id="${broadcastId}"]`;
  await page.waitForSelector(`${scope} button[data-answer-id="blue"]`);
  await page.click(`${scope} button[data-answer-id="blue"]`);
  await waitInPage(page, (selector: string) => document.querySelector(`${selector} [data-poll-results]`)?.dataset.total === '1', {}, scope);
  const stored = await rest(stack, 'GET', `/poll/v3/${pollId}/results`, { headers: viewer(site, me.token) });
  expect(stored.body).toMatchObject({ total: 1, mine: { answerId: 'blue' } });

  // An answer from elsewhere moves the count in the page.
  const other = await site.signIn([]);
  expect((await rest(stack, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, other.token), body: { answerId: 'red' } })).status).toBe(200);
  await waitInPage(page, (selector: string) => document.querySelector(`${selector} [data-poll-results]`)?.dataset.total === '2', {}, scope);
  expect(await page.evaluate(() => window.stagegraphEmbed.transport)).toBe('sse');
}, 120_000);

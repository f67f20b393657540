/**
 * GraphiQL at /graphiql in a real browser (headless Chromium) against the real stack: the page renders
 * from this origin alone (every request recorded, WebSockets too: all to the stack's 127.0.0.1 port),
 * it holds no credential, introspection and the docs explorer work once a developer's site ID and key
 * are in the headers editor (not before), a query returns data, a subscription runs over the socket
 * with those headers as connectionParams, and nothing of the key is stored. GRAPHIQL=off: 404.
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser, waitInPage } from '../helpers/browser';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here.
declare const document: any;
declare const localStorage: any;

let stack: Stack;
let site: TestSite;
let browser: Browser;
let page: Page;
let cdp: CDPSession;
let overlayId: string;
/** Every URL the page asked for (data: URLs are no request), and every WebSocket it opened. */
const requested: string[] = [];
/** Payloads of the WebSocket frames the page sent. */
const framesSent: string[] = [];
const consoleLines: string[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  site = await createTestSite(stack);
  const overlay = await rest(stack, 'POST', '/overlay/v1', {
    headers: site.admin,
    body: { name: 'Goal', type: 'instance', contents: { text: 'GOAL' }, duration: 600 },
  });
  expect(overlay.status).toBe(200);
  overlayId = overlay.body._id;
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('request', (request) => {
    if (!request.url().startsWith('data:')) requested.push(request.url());
  });
  cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketCreated', (event) => requested.push(event.url));
  cdp.on('Network.webSocketFrameSent', (event) => framesSent.push(event.response.payloadData));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stopAll();
});

/** The text of the CodeMirror editor that `pick` finds (by its class or what it holds). */
const editorValue = (selector: string) => page.evaluate((css: string) => document.querySelector(css)?.CodeMirror?.getValue() ?? null, selector);

async function setEditor(holding: string, value: string): Promise<void> {
  const set = await page.evaluate(
    (needle: string, text: string) => {
      const editor = [...document.querySelectorAll('.graphiql-editor .CodeMirror')].find((element: any) => element.CodeMirror.getValue().includes(needle));
      editor?.CodeMirror.setValue(text);
      return Boolean(editor);
    },
    holding,
    value,
  );
  expect(set).toBe(true);
}

const resultHolds = (text: string) =>
  waitInPage(page, (needle: string) => document.querySelector('.result-window .CodeMirror')?.CodeMirror.getValue().includes(needle), { timeout: 20_000 }, text);

it('renders from this origin alone, with a strict CSP and no credential in the page', async () => {
  const response = await page.goto(`${stack.url}/graphiql`);
  expect(response?.status()).toBe(200);
  const csp = response?.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/unsafe-eval|https?:/);
  const html = await response?.text();
  expect(html).not.toContain(site.siteId);
  expect(html).not.toContain('sgk_');
  await page.waitForSelector('.graphiql-container');
  // Without D or J the schema is refused, and the IDE says so.
  await resultHolds('introspection needs a developer key');
  expect(await editorValue('.graphiql-editor:not(.hidden) .CodeMirror')).toContain('query SiteOverlays');
});

it('introspects and fills the docs explorer once the site ID and developer key are in the headers editor', async () => {
  await page.click('button[aria-label="Show Documentation Explorer"]');
  await page.waitForSelector('.graphiql-doc-explorer');
  expect(await page.evaluate(() => document.querySelector('.graphiql-doc-explorer').textContent)).not.toContain('Root Types');

  await setEditor('x-service-developer-key', JSON.stringify({ 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey }, null, 2));
  await waitInPage(
    page,
    () => /Root Types[\s\S]*query:\s*Query[\s\S]*subscription:\s*Subscription/.test(document.querySelector('.graphiql-doc-explorer')?.textContent ?? ''),
    { timeout: 20_000 },
  );
});

it('runs a query with the developer key and shows its data', async () => {
  await page.click('button[aria-label^="Execute query"]');
  await resultHolds('"name": "Goal"');
  const result = JSON.parse(await editorValue('.result-window .CodeMirror'));
  expect(result).toEqual({ data: { overlays: [{ id: overlayId, name: 'Goal' }] } });
});

it('runs a subscription over the socket, with the headers as connectionParams', async () => {
  await setEditor('query SiteOverlays', /* GraphQL */ 'subscription Live {\n  overlayBroadcasts {\n    kind\n    broadcastId\n    overlay { name }\n  }\n}\n');
  // GraphiQL reads the operation's name from the editor a moment after an edit (the tab's title shows it).
  await waitInPage(page, () => document.querySelector('.graphiql-tab-active')?.textContent.includes('Live'), { timeout: 20_000 });
  await page.click('button[aria-label^="Execute query"]');
  // The subscription is on the socket before the broadcast (a late one would get it at join, as live state).
  const deadline = Date.now() + 20_000;
  while (!framesSent.some((frame) => frame.includes('"type":"subscribe"'))) {
    if (Date.now() > deadline)
      throw new Error(`GraphiQL sent no subscribe frame: ${await editorValue('.result-window .CodeMirror')} ${consoleLines.join(' | ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const init = JSON.parse(framesSent.find((frame) => frame.includes('"type":"connection_init"')) as string);
  expect((init as { payload: unknown }).payload).toEqual({ 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey });

  const sent = await rest(stack, 'POST', `/overlay/v1/broadcast/${overlayId}`, { headers: site.admin, body: {} });
  expect(sent.status).toBe(200);
  await resultHolds(sent.body.broadcastId);
  expect(await editorValue('.result-window .CodeMirror')).toContain('"name": "Goal"');
});

it('asked nothing of another host, and stored nothing of the key', async () => {
  const origin = new URL(stack.url);
  expect(requested.length).toBeGreaterThanOrEqual(5);
  for (const url of requested) expect({ url, host: new URL(url).host }).toEqual({ url, host: origin.host });
  expect(requested.filter((url) => url.startsWith('ws:'))).not.toHaveLength(0);
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(site.developerKey);
});

it('serves the bundles it needs, and GRAPHIQL=off leaves it out', async () => {
  const css = await fetch(`${stack.url}/graphiql/graphiql.css`);
  expect(css.status).toBe(200);
  expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  expect(await css.text()).not.toMatch(/url\(\s*["']?(https?:)?\/\//);
  const off = await startTestStack({ env: { GRAPHIQL: 'off' } });
  for (const path of ['/graphiql', '/graphiql/graphiql.js']) {
    const answer = await fetch(`${off.url}${path}`);
    expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    expect(((await answer.json()) as { success: boolean }).success).toBe(false);
  }
});

/**
 * A demo of the viewer side, as a new user meets it: a stagegraph of its own (temp SQLite, free port),
 * a site, a channel and a template overlay made through the public REST paths, and Chromium (Debian's
 * package, driven by puppeteer-core) on `/embed/v1/demo`. Used by scripts/screenshot-demo.ts (the
 * documents' pictures) and bench/browser.ts (broadcast-to-DOM latency).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchOptions } from 'puppeteer-core';
import { loadConfig } from '../shared/config';
import { startStack, type Stack } from '../stack';
import { provisionSite } from '../subgraphs/community/sites';

/** Chromium as the browser tests, the screenshot and the bench run it: headless, Debian's binary. */
export function chromiumLaunchOptions(executablePath: string): LaunchOptions {
  return {
    executablePath,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--mute-audio', '--autoplay-policy=no-user-gesture-required'],
  };
}

export interface Demo {
  stack: Stack;
  siteId: string;
  channelId: string;
  overlayId: string;
  /** The demo page of the site's channel. */
  demoUrl: string;
  /** POST /overlay/v1/broadcast/{overlayId} to the channel; the answer's broadcastId. */
  broadcast(variables: Record<string, string>): Promise<string>;
  /** A REST call with the site's admin keys (C + D); its JSON answer, or an error naming the status. */
  admin(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<Record<string, unknown>>;
  /** A viewer as a site's page makes one: sign-up (`POST /account/v3/`), then sign-in; the sign-in JWT. */
  signUpViewer(name: string): Promise<string>;
  close(): Promise<void>;
}

async function call(stack: Stack, method: string, path: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

const post = (stack: Stack, path: string, headers: Record<string, string>, body: unknown) => call(stack, 'POST', path, headers, body);

export async function startDemo(): Promise<Demo> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stagegraph-demo-'));
  const stack = await startStack(loadConfig({ PORT: '0', HOST: '127.0.0.1', SUBGRAPH_PORT_BASE: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  // What `npm run --silent cli -- site create --name "Demo site"` does.
  const site = await provisionSite(stack.database.prisma, { name: 'Demo site' });
  const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const channel = await post(stack, '/pages/v3', admin, { slug: 'match-day', type: 'channel' });
  const overlay = await post(stack, '/overlay/v1', admin, {
    name: 'Goal',
    type: 'template',
    duration: 30,
    contents: { html: '<strong>GOAL!</strong> ${player} scores for ${team} — {score}' },
    cta: { type: 'show_panel', data: 'match-stats' },
  });
  const channelId = channel._id as string;
  return {
    stack,
    siteId: site.siteId,
    channelId,
    overlayId: overlay._id as string,
    demoUrl: `${stack.url}/embed/v1/demo?siteId=${site.siteId}&channelId=${channelId}`,
    broadcast: async (variables) =>
      (await post(stack, `/overlay/v1/broadcast/${overlay._id as string}`, admin, { channelId, variables })).broadcastId as string,
    admin: (method, path, body) => call(stack, method, path, admin, body),
    signUpViewer: async (name) => {
      const viewer = { 'x-service-client-id': site.siteId };
      const account = { email: `${name.toLowerCase().replace(/\W+/g, '.')}@viewers.example`, password: 'correct horse battery staple' };
      await post(stack, '/account/v3/', viewer, { ...account, name });
      return (await post(stack, '/auth/v2/login', viewer, account)).jwt as string;
    },
    close: async () => {
      await stack.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

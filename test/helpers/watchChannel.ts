/**
 * What the watch page's channel tests share: channels and panels made through the public REST paths, the
 * page's console warnings, reads of the sidebar as the viewer sees it, and axe-core's audit of the page
 * (injected into the page and each frame of ours, its serious and critical violations read back).
 */
import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { waitInPage } from './browser';
import { rest } from './http';
import type { TestSite } from './stack';

// Functions handed to page.evaluate run in the browser: its globals are declared loosely here only.
declare const window: any;
declare const document: any;

let count = 0;

/** A channel of the site with `data` and `extra` page fields (renderers, active_renderers); its ID. */
export async function createChannelPage(stack: Stack, site: TestSite, data: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  count += 1;
  const reply = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: { slug: `channel-${count}-${Date.now()}`, type: 'channel', data: { name: `Channel ${count}`, ...data }, ...extra },
  });
  if (reply.status !== 200) throw new Error(`channel not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id;
}

/** A poll of the site answered yes or no; its ID. */
export async function createYesNoPoll(stack: Stack, site: TestSite, question: string): Promise<string> {
  const reply = await rest(stack, 'POST', '/poll/v3/', {
    headers: site.admin,
    body: {
      type: 'poll',
      name: question,
      question,
      answers: [
        { id: 'yes', text: 'Yes' },
        { id: 'no', text: 'No' },
      ],
    },
  });
  if (reply.status !== 200) throw new Error(`poll not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id;
}

/** The text of the first element `selector` matches. */
export const textIn = (target: Page | Frame, selector: string): Promise<string> => target.$eval(selector, (node: any) => node.textContent as string);

/** A panel of the site with `renderer`; its ID. */
export async function createPanel(stack: Stack, site: TestSite, renderer: Record<string, unknown>): Promise<string> {
  const reply = await rest(stack, 'POST', '/panel/v3/', { headers: site.admin, body: { siteId: site.siteId, renderer } });
  if (reply.status !== 200) throw new Error(`panel not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id;
}

/** The sidebar of `ids`, in order, as a page's `renderers`. */
export const sidebarOf = (ids: string[]) => ({ renderers: { sidebar: { items: ids.map((id, index) => ({ array_id: `item-${index}`, id })) } } });

/** Collects the page's console warnings from now on. */
export function consoleWarnings(page: Page): string[] {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warn') warnings.push(message.text());
  });
  return warnings;
}

/** The sidebar's panels as the page shows them (`window.stagegraphWatch.panels`), once `count` are drawn. */
export async function untilPanels(page: Page, count: number): Promise<{ id: string; kind: string }[]> {
  await waitInPage(page, (wanted: number) => window.stagegraphWatch?.panels?.length === wanted, {}, count);
  return page.evaluate(() => window.stagegraphWatch.panels);
}

/** A panel's section on the page. */
export const panelSelector = (panelId: string) => `section.sg-panel[data-panel-id="${panelId}"]`;

/** The frame of one of the page's iframes, once it has loaded `path`. */
export async function frameOf(page: Page, selector: string, path: string): Promise<Frame> {
  await waitInPage(page, (wanted: string, at: string) => document.querySelector(wanted)?.contentWindow?.location?.pathname === at, {}, selector, path);
  const handle = await page.$(selector);
  return await handle!.contentFrame();
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  /** The page or frame's path. */
  where: string;
  id: string;
  impact: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations in the page and each frame of ours (same origin; a third
 * party's frame is its own). Each document is audited on its own (`iframes: false`): a frame without axe
 * would make the run wait for its answer.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const origin = new URL(page.url()).origin;
  const findings: AxeFinding[] = [];
  for (const frame of page.frames()) {
    const url = frame.url();
    if (!url.startsWith(origin)) continue;
    await frame.evaluate(AXE_SOURCE);
    const violations: { id: string; impact: string; nodes: string[] }[] = await frame.evaluate(async () => {
      const result = await window.axe.run(document, { iframes: false, resultTypes: ['violations'] });
      return result.violations.map((violation: any) => ({
        id: violation.id,
        impact: violation.impact,
        nodes: violation.nodes.map((node: any) => node.target.join(' ')),
      }));
    });
    for (const violation of violations) {
      if (violation.impact === 'serious' || violation.impact === 'critical') findings.push({ where: new URL(url).pathname, ...violation });
    }
  }
  return findings;
}

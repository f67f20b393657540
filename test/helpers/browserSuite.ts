/**
 * A browser test file's fixtures in one call: a stack, a site on it and headless Chromium, started before
 * the file's tests and stopped after them; pages opened through it close after each test.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Stack } from '../../stack';
import { launchBrowser } from './browser';
import { createTestSite, startTestStack, stopAll, type TestSite } from './stack';

export interface BrowserSuite {
  stack: Stack;
  site: TestSite;
  browser: Browser;
  /** A new page, closed after the test. */
  newPage(): Promise<Page>;
}

/** Registers the file's hooks; the fields are set once its beforeAll has run. */
export function useBrowserSuite(siteName: string): BrowserSuite {
  const pages: Page[] = [];
  const suite = {
    newPage: async () => {
      const page = await suite.browser.newPage();
      pages.push(page);
      return page;
    },
  } as BrowserSuite;
  beforeAll(async () => {
    [suite.stack, suite.browser] = await Promise.all([startTestStack(), launchBrowser()]);
    suite.site = await createTestSite(suite.stack, siteName);
  });
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.close()));
  });
  afterAll(async () => {
    await suite.browser?.close();
    await stopAll();
  });
  return suite;
}

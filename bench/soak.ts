/**
 * Soak: viewers connect and disconnect continuously (200 per second by default) while broadcasts run
 * back to back. Figures: server memory after the soak against before (after a warm-up of the same
 * churn), and how many viewers missed a broadcast that was live while they watched.
 */
import { request, rssOf, siteWithOverlay, startInstance, startWorker } from './harness';
import type { ViewerRecord } from './churn';

export interface SoakFigures {
  seconds: number;
  viewersPerSecond: number;
  viewers: number;
  failedConnections: number;
  broadcasts: number;
  /** Viewer × broadcast pairs that had to be shown. */
  expectedShows: number;
  missedShows: number;
  rssBeforeMB: number;
  rssAfterMB: number;
  memoryGrowthPercent: number;
}

const MARGIN_MS = 300;

/**
 * Resident memory once the process is quiet: the lowest of a sample a second for `seconds`. V8 gives
 * memory back only when its idle-time memory reducer runs, so one reading taken just after a burst of
 * garbage measures heap sizing, not what the process holds.
 */
async function settledRss(pid: number, seconds = 12): Promise<number> {
  let lowest = Infinity;
  for (let second = 0; second < seconds; second += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    lowest = Math.min(lowest, rssOf(pid));
  }
  return lowest;
}

async function churn(url: string, siteId: string, channelId: string, perSecond: number, seconds: number): Promise<ViewerRecord[]> {
  const worker = startWorker('churn.ts');
  const reply = await request(
    worker,
    { type: 'start', url: `${url.replace('http', 'ws')}/graphql`, siteId, channelId, perSecond, seconds, minLifeMs: 1000, maxLifeMs: 4000 },
    'done',
  );
  worker.kill();
  return reply.records as ViewerRecord[];
}

export async function measureSoak(seconds = 60, perSecond = 200): Promise<SoakFigures> {
  const instance = await startInstance();
  const { site, headers, overlay, channel } = await siteWithOverlay(instance, 'Soak', '{n}', 2);

  const broadcasts: { id: string; startedAt: number; expiresAt: number }[] = [];
  let broadcasting = true;
  const loop = (async () => {
    for (let n = 0; broadcasting; n += 1) {
      const startedAt = performance.timeOrigin + performance.now();
      const reply = (await (
        await fetch(`${instance.url}/overlay/v1/broadcast/${overlay._id}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ channelId: channel, duration: 2, variables: { n: String(n) } }),
        })
      ).json()) as { broadcastId: string; expiresAt: number };
      broadcasts.push({ id: reply.broadcastId, startedAt, expiresAt: reply.expiresAt });
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();

  await churn(instance.url, site.siteId, channel, perSecond, Math.min(10, seconds));
  const rssBefore = await settledRss(instance.pid);
  const records = await churn(instance.url, site.siteId, channel, perSecond, seconds);
  broadcasting = false;
  await loop;
  const rssAfter = await settledRss(instance.pid);
  await instance.stop();

  let expectedShows = 0;
  let missedShows = 0;
  for (const record of records) {
    if (record.failed || record.subscribedAt === 0) continue;
    const shown = new Set(record.shown);
    for (const broadcast of broadcasts) {
      const overlaps = broadcast.startedAt < record.closedAt - MARGIN_MS && broadcast.expiresAt > record.subscribedAt + MARGIN_MS;
      if (!overlaps) continue;
      expectedShows += 1;
      if (!shown.has(broadcast.id)) missedShows += 1;
    }
  }
  return {
    seconds,
    viewersPerSecond: perSecond,
    viewers: records.length,
    failedConnections: records.filter((record) => record.failed).length,
    broadcasts: broadcasts.length,
    expectedShows,
    missedShows,
    rssBeforeMB: Math.round(rssBefore / 1048576),
    rssAfterMB: Math.round(rssAfter / 1048576),
    memoryGrowthPercent: Math.round(((rssAfter - rssBefore) / rssBefore) * 1000) / 10,
  };
}

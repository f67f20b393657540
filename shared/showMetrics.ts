/**
 * Metrics of the show (docs/design.md "The show"): how many channels are on air, and how long a stream webhook
 * takes to reach viewers. Beside shared/metrics.ts (same registry, same rules: no IDs in labels).
 */
import { Gauge, Histogram } from 'prom-client';
import { metricsEnabled, processRegistry } from './metrics';

/** Counts the channels whose stream is on air; set by the integrations subgraph, which owns streams. */
type LiveCounter = () => Promise<number>;
let countLive: LiveCounter | null = null;

new Gauge({
  name: 'stagegraph_channels_live',
  help: 'Channels whose stream is on air (LIVE or RECONNECTING) by its webhooks, read from the database when scraped.',
  registers: [processRegistry],
  async collect() {
    if (!countLive) return;
    try {
      this.set(await countLive());
    } catch {
      // A scrape during a database outage keeps the last value rather than failing every family.
    }
  },
});

const webhookToViewer = new Histogram({
  name: 'stagegraph_show_webhook_to_viewer_seconds',
  help: 'Time from a stream webhook (or a recording call, or an admin changing the channel) being accepted to the channelStatus event being written to every viewer of the channel on this instance.',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [processRegistry],
});

/** Sets what the channels-live gauge counts with; returns what unsets it (when its runtime stops). */
export function countChannelsLiveWith(counter: LiveCounter): () => void {
  countLive = counter;
  return () => {
    if (countLive === counter) countLive = null;
  };
}

/** A channelStatus change written to this instance's viewers, `acceptedAt` (Unix ms) after its webhook was accepted. */
export function recordShowDelivery(acceptedAt: number): void {
  if (metricsEnabled()) webhookToViewer.observe(Math.max(0, Date.now() - acceptedAt) / 1000);
}

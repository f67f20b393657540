/**
 * The families of one instance's public port, in a registry of its own (shared/metrics.ts holds the
 * process-wide ones): its live viewers and subscriptions, its connection to the bus and its drain, each
 * read when /metrics is scraped, so two instances in one process (tests) each report their own.
 */
import { Gauge, Registry } from 'prom-client';

/** What an instance's live server reports. */
export interface LiveStats {
  stats(): { connections: number; subscriptions: number; byTransport: Record<string, number> };
}

/** What an instance reports of its drain (gateway/drain.ts) and the grace period it was given. */
export interface DrainStats {
  secondsDraining(): number;
  graceSeconds: number;
}

/** The registry of one instance's own gauges (its live viewers, its bus, its drain), read when scraped. */
export function instanceRegistry(live: LiveStats, bus?: { connected(): boolean }, drain?: DrainStats): Registry {
  const registry = new Registry();
  if (drain) {
    // Both, so an alert can tell a drain that outlasts its grace period from one that is merely long.
    new Gauge({
      name: 'stagegraph_draining_seconds',
      help: 'Seconds since this instance began draining (SIGTERM: /ready answers 503); 0 while it serves.',
      registers: [registry],
      collect() {
        this.set(drain.secondsDraining());
      },
    });
    new Gauge({
      name: 'stagegraph_shutdown_grace_seconds',
      help: 'How long a drain of this instance goes on answering before its port closes (SHUTDOWN_GRACE_MS).',
      registers: [registry],
    }).set(drain.graceSeconds);
  }
  if (bus) {
    new Gauge({
      name: 'stagegraph_bus_connected',
      help: 'Whether this instance is connected to its event bus (Redis) now: 1 yes, 0 no. Broadcasts answer 503 while it is 0.',
      registers: [registry],
      collect() {
        this.set(bus.connected() ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'stagegraph_live_viewers',
    help: 'Live viewer connections open on this instance now, by transport: websocket (graphql-ws), sse (graphql-sse), multipart (multipart HTTP).',
    labelNames: ['transport'],
    registers: [registry],
    collect() {
      for (const [transport, count] of Object.entries(live.stats().byTransport)) this.set({ transport }, count);
    },
  });
  new Gauge({
    name: 'stagegraph_live_subscriptions',
    help: 'Subscriptions (overlay broadcasts and admin feeds) running on this instance now.',
    registers: [registry],
    collect() {
      this.set(live.stats().subscriptions);
    },
  });
  return registry;
}

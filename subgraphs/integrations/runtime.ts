/**
 * What the integrations subgraph keeps for its whole life, created once at start: the caches of data
 * providers and automation rules (kept in step with other instances over the event bus), the
 * per-provider rate limiter of data events (in Redis when configured, so every instance counts the
 * same events), the batching writer of data events, and the sweeper that removes expired ones.
 */
import { openRateLimiters } from '../../shared/rateLimits';
import { Topics } from '../../shared/bus';
import type { ServiceDeps } from '../../shared/subgraph';
import { RuleCache } from './automationRules';
import { DataProviderCache } from './dataProviders';
import { countChannelsLiveWith } from '../../shared/showMetrics';
import { countOnAir } from './channelShows';
import { DataEventWriter, removeExpiredEvents, type DataEventIntake } from './dataEvents';

/** The data-event intake's caches, limiter and writer, and what stops them. */
export interface IntegrationsRuntime extends DataEventIntake {
  stop(): Promise<void>;
}

const SWEEP_MS = 30_000;

export function createIntegrationsRuntime({ config, database, bus, logger, supergraph }: ServiceDeps): IntegrationsRuntime {
  const dataProviders = new DataProviderCache(database.prisma, config.encryptionKey);
  const rules = new RuleCache(supergraph);
  const unsubscribe = [
    bus.subscribe(Topics.automationRulesChanged, (message) => {
      for (const id of (message as { dataProviderIds?: string[] }).dataProviderIds ?? []) rules.drop(id);
    }),
    bus.subscribe(Topics.dataProviderChanged, (message) => dataProviders.drop((message as { dataProviderId: string }).dataProviderId)),
  ];

  const limits = openRateLimiters(config, logger);
  const eventRate = limits.limiter({ points: config.dataEventRateLimit, duration: config.dataEventRateWindowSeconds, keyPrefix: 'data-events' });

  const sweeper = setInterval(() => {
    removeExpiredEvents(database.prisma).catch((error: Error) => logger.warn({ err: error.message }, 'could not remove expired data events'));
  }, SWEEP_MS);
  sweeper.unref();
  const stopCountingLive = countChannelsLiveWith(() => countOnAir({ db: database.prisma }));

  return {
    dataProviders,
    rules,
    eventRate,
    eventWriter: new DataEventWriter(database),
    ruleWaitMs: config.ruleWaitMs,
    async stop() {
      clearInterval(sweeper);
      stopCountingLive();
      for (const stop of unsubscribe) stop();
      await limits.close();
    },
  };
}

/** What every job of quest progress needs from its surroundings, in a file of its own so that each job imports it and none imports another back for it. */
import type { EventBus } from '../../../shared/bus';
import type { Config } from '../../../shared/config';
import type { Db } from '../../../shared/db/client';
import type { Logger } from '../../../shared/logger';
import type { ServiceDeps } from '../../../shared/subgraph';
import type { SupergraphClient } from '../../../shared/supergraph';
import type { ViewerReads } from '../viewerReads';
import type { WebhookWaker } from '../webhookDispatcher';

/**
 * Outside the content service (the gateway's watch time) there is no dispatcher to wake: the content
 * service's dispatcher finds the deliveries at its next look at the outbox, within 2 s.
 */
const NO_DISPATCHER_HERE: WebhookWaker = { kick: () => undefined };

/** What quest progress needs from its surroundings: the content runtime's, or a service's deps. */
export interface QuestDeps {
  db: Db;
  bus: EventBus;
  supergraph: SupergraphClient;
  logger: Logger;
  config: Config;
  webhooks: WebhookWaker;
  /** The process's kept reads (a site's quests). */
  reads: ViewerReads;
}

/** The deps of a service (the content runtime, the live server's watch time) as QuestDeps. */
export function questDepsOf(deps: ServiceDeps, reads: ViewerReads, webhooks: WebhookWaker = NO_DISPATCHER_HERE): QuestDeps {
  return {
    db: deps.database.prisma,
    bus: deps.bus,
    supergraph: deps.supergraph,
    logger: deps.logger.child({ component: 'quests' }),
    config: deps.config,
    webhooks,
    reads,
  };
}

/** The content subgraph, built and not listening: sites, pages and channels, and the content around them. */
import type { ApolloServerPlugin } from '@apollo/server';
import { subgraphTypeDefs } from '..';
import type { Db } from '../../shared/db/client';
import type { Logger } from '../../shared/logger';
import { buildSubgraphServer, type ServiceDeps, type SubgraphContext } from '../../shared/subgraph';
import { startChat } from './chat/runtime';
import { startPollAnswers } from './polls/answers';
import { questDepsOf, recordQuestActivityForAnswers } from './quests/progress';
import { resolvers } from './resolvers';
import { announceContentChanges } from './viewerReads';
import { stopWebhookDispatcher, webhookDispatcher } from './webhookDispatcher';

export const typeDefs = subgraphTypeDefs('content');
export { resolvers };

/**
 * Runs the webhook dispatcher while the subgraph serves: it starts with the first request (whose
 * context carries the database and configuration), picks up deliveries a previous run left pending,
 * and stops with the server.
 */
function webhookDelivery(logger: Logger): ApolloServerPlugin<SubgraphContext> {
  let database: Db | null = null;
  return {
    async requestDidStart({ contextValue }) {
      database ??= contextValue.db;
      webhookDispatcher(contextValue.db, contextValue.config, logger);
    },
    async serverWillStart() {
      return {
        async serverWillStop() {
          if (database) await stopWebhookDispatcher(database);
        },
      };
    },
  };
}

/** The answers runtime (batching writer, rate limit, bus subscription) lives as long as the server. */
function pollAnswerRuntime(deps: ServiceDeps): ApolloServerPlugin<SubgraphContext> {
  const quests = questDepsOf(deps);
  // Quest progress hook: every batch of stored answers (the quests' own batching evaluates them).
  const runtime = startPollAnswers(deps, (rows) => void recordQuestActivityForAnswers(quests, rows.map((row) => ({ ...row, answeredAt: Date.now() }))));
  return {
    async serverWillStart() {
      return { serverWillStop: () => runtime.stop() };
    },
  };
}

/** The chat runtime (batching writer, rate limits, room settings, retention) lives as long as the server. */
function chatRuntime(deps: ServiceDeps): ApolloServerPlugin<SubgraphContext> {
  const runtime = startChat(deps);
  return {
    async serverWillStart() {
      return { serverWillStop: () => runtime.stop() };
    },
  };
}

export function createContentSubgraph(logger: Logger, deps: ServiceDeps) {
  return buildSubgraphServer(typeDefs, resolvers, logger, [webhookDelivery(logger), announceContentChanges(), pollAnswerRuntime(deps), chatRuntime(deps)]);
}

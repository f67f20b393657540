/**
 * What one content subgraph server keeps between requests, built once by server.ts and handed to the
 * resolvers (createResolvers): the chat runtime (batching writer, rate limits, room settings, retention),
 * the poll answers runtime (batching writer, rate limit, poll summaries), audience Q&A (room settings,
 * the question limit, the vote writer), quest progress with its answer
 * batcher and its outbox (claims and raffles a crash left undone), and the webhook dispatcher. The
 * dispatcher and the outbox start with the server, so deliveries an earlier run left pending go out
 * without waiting for a request; everything stops with the server.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from '../../shared/logger';
import type { ServiceDeps, SubgraphContext } from '../../shared/subgraph';
import { ChatRuntime } from './chat/runtime';
import { PollAnswerRuntime } from './polls/answers';
import { QaRuntime } from './qa/runtime';
import { QuestAnswerBatcher } from './quests/answerBatches';
import { runQuestOutbox } from './quests/completion';
import { questDepsOf, type QuestDeps } from './quests/deps';
import { followedSiteCache } from '../../shared/viewerReads';
import type { ViewerReads } from './viewerReads';
import { WebhookDispatcher } from './webhookDispatcher';
import { AccountAccessCache } from './checkInputs';
import { offerQuickContentCheck } from './quickCheck';

export interface ContentRuntime {
  chat: ChatRuntime;
  /** Audience Q&A: room settings, the question limit, the vote writer. */
  qa: QaRuntime;
  answers: PollAnswerRuntime;
  /** Quest progress's surroundings; its `webhooks` is the dispatcher below. */
  quests: QuestDeps;
  /** Sends webhook deliveries: `kick()` after a change wrote some. */
  webhooks: WebhookDispatcher;
  /** The content a viewer's join reads, kept until the site's content changes (viewerReads.ts). */
  reads: ViewerReads;
  /** The accounts' entitlements and devices the content check keeps (checkInputs.ts). */
  access: AccountAccessCache;
  /** Starts the dispatcher and the quest outbox with the server; stops everything with it. */
  plugin: ApolloServerPlugin<SubgraphContext>;
}

export function createContentRuntime(logger: Logger, deps: ServiceDeps): ContentRuntime {
  const webhooks = new WebhookDispatcher(deps.database.prisma, deps.config, logger.child({ component: 'webhooks' }));
  // Keyed: a stream's show change drops only that show (shared/channelStatus.ts).
  const viewerReads = followedSiteCache<unknown>(deps.bus, undefined, true);
  const quests = questDepsOf(deps, viewerReads.cache, webhooks);
  const answerBatches = new QuestAnswerBatcher(quests);
  // Every batch of stored answers goes on to quest progress (which batches them again for its own look).
  const answers = new PollAnswerRuntime(deps, (rows) => void answerBatches.record(rows.map((row) => ({ ...row, answeredAt: Date.now() }))));
  const chat = new ChatRuntime(deps);
  const qa = new QaRuntime(deps);
  const access = new AccountAccessCache(deps.bus, deps.now ?? Date.now);
  const quickCheck = offerQuickContentCheck(deps, viewerReads.cache, access);
  let outbox: ReturnType<typeof runQuestOutbox> | null = null;
  return {
    chat,
    qa,
    answers,
    quests,
    webhooks,
    reads: viewerReads.cache,
    access,
    plugin: {
      async serverWillStart() {
        webhooks.kick();
        outbox = runQuestOutbox(quests);
        return {
          async serverWillStop() {
            await outbox?.close();
            viewerReads.stop();
            access.stop();
            quickCheck.withdraw();
            await Promise.all([webhooks.stop(), answers.stop(), chat.stop(), qa.stop()]);
          },
        };
      },
    },
  };
}

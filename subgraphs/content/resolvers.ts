/** Resolvers of the content subgraph, one file per area (under resolvers/ or the capability's folder), merged here. */
import { calendarResolvers } from './resolvers/calendar';
import { chatResolvers } from './chat/resolvers';
import { pageResolvers } from './resolvers/pages';
import { panelResolvers } from './resolvers/panels';
import { playlistResolvers } from './resolvers/playlists';
import { pollAnswerResolvers } from './polls/answerResolvers';
import { pollResolvers } from './polls/resolvers';
import { qaResolvers } from './qa/resolvers';
import { questResolvers } from './quests/resolvers';
import { scheduleResolvers } from './resolvers/schedule';
import { showResolvers } from './resolvers/show';
import { siteResolvers } from './resolvers/site';
import { templateResolvers } from './resolvers/templates';
import { trustedDocumentResolvers } from './resolvers/trustedDocuments';
import { webhookResolvers } from './resolvers/webhooks';
import { mergeResolvers } from '../../shared/subgraph';
import type { Resolvers } from './resolvers.generated';
import type { ContentRuntime } from './runtime';

/** Every area's resolvers merged into one map, bound to the server's runtime. */
export function createResolvers(runtime: ContentRuntime): Resolvers {
  return mergeResolvers<Resolvers>(
    siteResolvers(runtime.reads, runtime.access),
    pageResolvers(runtime.webhooks, runtime.reads, runtime.access),
    templateResolvers,
    panelResolvers,
    scheduleResolvers,
    playlistResolvers(runtime.reads, runtime.access),
    pollResolvers(runtime.webhooks),
    pollAnswerResolvers(runtime.answers),
    questResolvers(runtime.quests),
    calendarResolvers,
    webhookResolvers,
    chatResolvers(runtime.chat),
    qaResolvers(runtime.qa),
    showResolvers(runtime.reads, runtime.access, runtime.webhooks),
    trustedDocumentResolvers,
  );
}

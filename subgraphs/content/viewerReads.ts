/**
 * The content a viewer's join reads — pages, the site (settings, theme, device limit), videos and the
 * page configuration — kept per instance and dropped per site when the content subgraph changes any of
 * it (every content mutation announces its site: see `announceContentChanges`). What differs per
 * viewer (entitlements, devices, preview clocks, passwords) is never kept here.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, OperationTypeNode, type OperationDefinitionNode } from 'graphql';
import type { SubgraphContext } from '../../shared/subgraph';
import { announceViewerReadsChanged, type SiteCache } from '../../shared/viewerReads';

/**
 * The kept reads of one process, following the bus's content changes (`followedSiteCache`): the content
 * runtime's, and the gateway's own for the quests its watch time reads.
 */
export type ViewerReads = SiteCache<unknown>;

/** What reads through the cache: a resolver's reader, or quest progress's deps. */
export interface WithViewerReads {
  reads: ViewerReads;
}

/** `read()` once per site, key and content change on this instance; concurrent callers share it. */
export function viewerRead<T>(ctx: WithViewerReads, siteId: string, key: string, read: () => Promise<T>): Promise<T> {
  return ctx.reads.through(siteId, key, read) as Promise<T>;
}

/** A resolver's context with the runtime's kept reads: what the show and the content check read with. */
export function readerOf(ctx: SubgraphContext, reads: ViewerReads) {
  return {
    db: ctx.db,
    bus: ctx.bus,
    supergraph: ctx.supergraph,
    identity: ctx.identity,
    reads,
    playbackTokenTtlSeconds: ctx.config.playbackTokenTtlSeconds,
  };
}

/**
 * Mutations viewers make by the thousand that change no content a viewer reads through these caches (an
 * answer changes a poll's counts and quest progress, neither kept here): announcing them would empty
 * every instance's caches, and make every chat room of the site read its settings again, many times a
 * second during a live poll or chat, and each answer would wait for the announcement's round trip.
 */
const VIEWER_ACTIVITY_MUTATIONS = new Set(['sendChatMessage', 'answerPoll']);

function onlyViewerActivity(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && VIEWER_ACTIVITY_MUTATIONS.has(selection.name.value));
}

/**
 * Announces the caller's site as changed after every content mutation (its answer waits for it), so
 * viewers on every instance read the change at once. Failed mutations announce too: a partial write
 * is rare, a needless drop is cheap.
 */
export function announceContentChanges(): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, contextValue }) {
          if (operation?.operation !== OperationTypeNode.MUTATION || onlyViewerActivity(operation)) return;
          try {
            await announceViewerReadsChanged(contextValue.bus, contextValue.identity.siteId ?? null);
          } catch (error) {
            contextValue.logger.warn({ err: (error as Error).message }, 'content change held until the bus is back (other instances drop their copies then)');
          }
        },
      };
    },
  };
}

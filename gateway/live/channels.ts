/**
 * Which channels a viewer may subscribe to: a channel is a page of type channel of the viewer's site.
 * Without this check a viewer could subscribe to a channel ID of its own making, and that ID would show
 * up in the operator's figures (insights' concurrents) as if it were a channel of the site.
 *
 * The answer is read through the supergraph (the gateway never reads a subgraph's tables) as the site
 * ID alone reads it, and kept per instance per site and channel (shared/viewerReads.ts): a join storm
 * of thousands of viewers of one channel costs one read on this instance, and the content subgraph's
 * change announcement (a page created, changed or deleted) drops the kept answers of that site on every
 * instance, so a deleted channel is refused from then on.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Identity } from '../../shared/auth/identity';
import type { EventBus } from '../../shared/bus';
import { ErrorCode, appError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { Logger } from '../../shared/logger';
import { followedSiteCache } from '../../shared/viewerReads';

const LOAD_CHANNEL = /* GraphQL */ `
  query LiveChannelExists($id: ID!) {
    page(id: $id) { id type }
  }
`;
export const LIVE_CHANNEL_OPERATIONS = [LOAD_CHANNEL];

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

/** Answers whether a channel is one of a site's; null when it is, else the error to answer the subscription with. */
export type ChannelCheck = (siteId: string, channelId: string) => Promise<GraphQLError | null>;

/** The check, reading through `execute` and kept per instance until the site's content changes. */
export function liveChannelCheck(execute: Execute, bus: EventBus, logger: Logger): { check: ChannelCheck; stop(): void } {
  const { cache, stop } = followedSiteCache<boolean>(bus);
  const exists = async (siteId: string, channelId: string): Promise<boolean> => {
    const viewer: Identity = { siteId, developerKey: false, account: null, requestId: newId() };
    const result = await execute({ query: LOAD_CHANNEL, variables: { id: channelId } }, viewer);
    const [error] = result.errors ?? [];
    const code = error?.extensions?.code;
    // A malformed ID is no channel either; anything else is a failure to read, not an answer (never kept).
    if (code === ErrorCode.NOT_FOUND || code === ErrorCode.BAD_USER_INPUT) return false;
    if (error) throw new Error(error.message);
    return (result.data as { page: { type: string } | null } | null)?.page?.type === 'channel';
  };
  const check: ChannelCheck = async (siteId, channelId) => {
    try {
      if (await cache.through(siteId, channelId, () => exists(siteId, channelId))) return null;
      return appError(ErrorCode.NOT_FOUND, `channelId: no channel ${JSON.stringify(channelId.slice(0, 100))} on this site`);
    } catch (error) {
      logger.warn({ err: (error as Error).message, channelId }, 'could not check a channel');
      return appError(ErrorCode.SERVICE_UNAVAILABLE, 'the channel cannot be checked now, try again shortly');
    }
  };
  return { check, stop };
}

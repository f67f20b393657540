/**
 * Whether a broadcast's channel is one of the site's. Pages belong to the content subgraph, so the
 * overlays subgraph asks the supergraph (`page`), never reads its tables. A broadcast to a channel that
 * exists nowhere would reach no viewer and still answer 200: it is refused as NOT_FOUND instead.
 */
import { GraphQLError } from 'graphql';
import { serviceIdentity } from '../../shared/auth/identity';
import { ErrorCode, appError } from '../../shared/errors';
import type { SubgraphContext } from '../../shared/subgraph';

const PAGE_OF_CHANNEL = /* GraphQL */ `query OverlayChannel($id: ID!) { page(id: $id) { id type } }`;

/** NOT_FOUND (naming channelId) unless `channelId` is a channel (a page of type channel) of the site. */
export async function checkChannelOfSite(ctx: Pick<SubgraphContext, 'supergraph'>, siteId: string, channelId: string): Promise<void> {
  let page: { type: string } | null = null;
  try {
    page = (await ctx.supergraph.execute<{ page: { type: string } | null }>(PAGE_OF_CHANNEL, { id: channelId }, serviceIdentity(siteId))).page;
  } catch (error) {
    const code = error instanceof GraphQLError ? error.extensions.code : undefined;
    if (code !== ErrorCode.NOT_FOUND && code !== ErrorCode.BAD_USER_INPUT) throw error;
  }
  if (page?.type !== 'channel') throw appError(ErrorCode.NOT_FOUND, `channel ${channelId} not found on this site`, { field: 'channelId' });
}

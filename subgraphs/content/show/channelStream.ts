/**
 * Channel ↔ stream: a stream created for a channel becomes its stream (`renderers.livestream.stream_id`)
 * when it has none; a channel that names a stream keeps it; one stream belongs to one channel
 * (streamBinding.ts). Deleting a channel asks the provider to
 * block its stream's ingest (the integrations subgraph's deleteStream call, retried like every call).
 * A channel changed or deleted by its admin (the switch, the gate, the countdown) is announced to its
 * channelStatus viewers like a webhook.
 */
import { serviceIdentity } from '../../../shared/auth/identity';
import { announceChannelStatus } from '../../../shared/contracts/channelStatus';
import type { Page } from '../../../shared/db/generated/sqlite';
import type { Logger } from '../../../shared/logger';
import type { SubgraphContext } from '../../../shared/subgraph';
import { isRecord } from '../checks';
import { findPage } from '../pages';
import { enqueueChannelUpdated } from '../webhooks';
import { streamBinding } from './streamBinding';

/** Tries this many times when another write changed the page between its read and the update. */
const ATTEMPTS = 5;

/**
 * Makes `streamId` the channel's stream when it has none (a channel that names a stream keeps it); `changed`
 * when it did, in which case the site's admin.channelUpdated webhook (seed 001, Events 1: its `streamId`) was
 * written with the change. A stream another channel of the site holds is refused with CONFLICT, and nothing is
 * written.
 */
export async function attachChannelStream(
  db: SubgraphContext['db'],
  siteId: string,
  channelId: string,
  streamId: string,
): Promise<{ page: Page; changed: boolean }> {
  for (let attempt = 1; ; attempt += 1) {
    const page = await findPage(db, siteId, channelId);
    if (page.streamId !== null) return { page, changed: false };
    const document = isRecord(page.document) ? page.document : {};
    const renderers = isRecord(document.renderers) ? document.renderers : {};
    const livestream = isRecord(renderers.livestream) ? renderers.livestream : {};
    const next = { ...document, renderers: { ...renderers, livestream: { ...livestream, stream_id: streamId } } };
    // Conditional on the page being as read: a concurrent write (or a second stream) is never overwritten.
    const attached = await db.$transaction(async (tx) => {
      const written = await tx.page.updateMany({
        where: { id: page.id, updatedAt: page.updatedAt },
        data: {
          document: next,
          streamId: await streamBinding(tx, siteId, next, page.id),
          updatedAt: new Date(Math.max(Date.now(), page.updatedAt.getTime() + 1)),
        },
      });
      if (written.count === 0) return null;
      const changed = await tx.page.findUniqueOrThrow({ where: { id: page.id } });
      await enqueueChannelUpdated(tx, changed, 'updated');
      return changed;
    });
    if (attached) return { page: attached, changed: true };
    if (attempt === ATTEMPTS) return { page: await findPage(db, siteId, channelId), changed: false };
  }
}

const DELETE_STREAM = /* GraphQL */ `mutation DeleteChannelStream($streamId: ID!) { deleteProviderStream(streamId: $streamId) { id } }`;

/**
 * Asks the provider to block the deleted channel's stream. The channel is gone whatever the provider
 * says: a failure (after the call's own retries) is logged for the operator, not thrown at the admin.
 */
export async function deleteChannelStream(ctx: Pick<SubgraphContext, 'supergraph'> & { logger: Logger }, page: Page): Promise<void> {
  // Its own stream only (the page's streamId column, one channel's): never one a clone's document once named.
  const streamId = page.streamId;
  if (!streamId || page.type !== 'channel') return;
  try {
    await ctx.supergraph.execute(DELETE_STREAM, { streamId }, serviceIdentity(page.siteId));
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, streamId }, 'the deleted channel’s stream could not be blocked at its provider');
  }
}

/** A channel's admin changed it: its channelStatus viewers on every instance read it again (a failure is logged). */
export async function announceChannelChange(ctx: Pick<SubgraphContext, 'bus'> & { logger: Logger }, page: Page): Promise<void> {
  if (page.type !== 'channel') return;
  try {
    await announceChannelStatus(ctx.bus, { siteId: page.siteId, channelId: page.id, acceptedAt: Date.now() });
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message, channelId: page.id }, 'a channel change was not announced to its viewers');
  }
}

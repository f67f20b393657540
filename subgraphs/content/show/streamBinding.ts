/**
 * One stream, one channel (docs/design.md "Paid video stays paid"): the stream a channel's document names
 * (`renderers.livestream.stream_id`) is kept in the page's `streamId` column, unique among the site's pages, so a
 * second channel of the site can never go live on another's stream nor have it deleted with itself. A write that
 * names a stream another channel holds is refused with CONFLICT (the unique index is the backstop for
 * two writes at once, which the subgraph maps to CONFLICT as well).
 */
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { conflict } from '../../../shared/errors';
import { isRecord, type JsonRecord } from '../checks';
import { streamIdOf } from './channelShow';

/**
 * The stream `document` binds to page `pageId` of the site (null: none), refused with CONFLICT when
 * another page of the site holds it. Read in the writer's transaction. Per site: a stream is found only
 * with its site's ID, and another site's pages are none of this site's business.
 */
export async function streamBinding(tx: Prisma.TransactionClient, siteId: string, document: unknown, pageId: string | null): Promise<string | null> {
  const streamId = streamIdOf(document);
  if (streamId === null) return null;
  const holder = await tx.page.findFirst({ where: { siteId, streamId, ...(pageId ? { NOT: { id: pageId } } : {}) }, select: { id: true } });
  if (holder) throw conflict(`stream ${streamId} belongs to another channel`);
  return streamId;
}

/** The document without a stream: what a clone of a channel starts with (its own stream is made when asked). */
export function withoutStream(document: JsonRecord): JsonRecord {
  const renderers = isRecord(document.renderers) ? document.renderers : null;
  const livestream = renderers && isRecord(renderers.livestream) ? renderers.livestream : null;
  if (!renderers || !livestream || !('stream_id' in livestream)) return document;
  const { stream_id: _dropped, ...rest } = livestream;
  return { ...document, renderers: { ...renderers, livestream: rest } };
}

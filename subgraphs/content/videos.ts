/** Videos of a site; a streaming provider's delivered recording becomes one, once per vodId. */
import type { Db } from '../../shared/db/client';
import { badInput, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { RecordVodInput } from './resolvers.generated';

export async function recordVod(db: Db, siteId: string, input: RecordVodInput) {
  if (!/^https?:\/\//.test(input.url)) throw badInput('url must be an http(s) URL', 'url');
  if (input.durationSeconds !== null && input.durationSeconds !== undefined && !(input.durationSeconds >= 0)) {
    throw badInput('durationSeconds must not be negative', 'durationSeconds');
  }
  const existing = await db.video.findUnique({ where: { siteId_externalId: { siteId, externalId: input.vodId } } });
  if (existing) return existing;
  const page = await db.page.findFirst({ where: { id: input.pageId, siteId }, select: { id: true, document: true } });
  if (!page) throw notFound(`page ${input.pageId}`);
  const now = new Date();
  return db.video.upsert({
    where: { siteId_externalId: { siteId, externalId: input.vodId } },
    update: {},
    create: {
      id: newId(),
      siteId,
      pageId: page.id,
      title: input.title ?? `Recording ${now.toISOString().slice(0, 16).replace('T', ' ')}`,
      type: 'vod',
      url: input.url,
      durationSeconds: input.durationSeconds ?? null,
      uploadStatus: 'ready',
      requiredSkus: [],
      source: { vodId: input.vodId, liveBroadcastId: input.liveBroadcastId ?? null, streamId: input.streamId ?? null },
      externalId: input.vodId,
      tags: [],
      createdAt: now,
      updatedAt: now,
    },
  });
}

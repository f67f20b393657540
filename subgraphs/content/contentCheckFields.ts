/**
 * The content check's answer as its GraphQL fields resolve (the Page and Video resolvers' own functions,
 * scalars as they serialize), for the REST bridge's answer built without executing the operation
 * (checkContentKept). Every field of ContentCheck, CanIPlay, Page and Video is here; the bridge picks the
 * ones its document selects, and falls back to executing when one is missing. test/content/ compares
 * both paths byte for byte. A page or video's fields are built once per kept object, and marked
 * unchanging so the bridge keeps their text too.
 */
import type { Page } from '../../shared/db/generated/sqlite';
import { stringList } from '../../shared/json';
import { unchanging } from '../../shared/quickAnswers';
import type { ContentCheckModel } from './contentCheck';
import { pagePart } from './pages';
import { timestamps } from './scopes';
import type { VideoView } from './videoViews';

export type Fields = Record<string, unknown>;

/** Fields of the kept Page and Video objects (the viewer-read cache's), built once each. */
const fieldsOf = new WeakMap<object, Fields>();

function kept<T extends object>(model: T, build: (model: T) => Fields): Fields {
  let fields = fieldsOf.get(model);
  if (!fields) fieldsOf.set(model, (fields = unchanging(build(model))));
  return fields;
}

function pageFields(page: Page): Fields {
  return {
    id: page.id,
    siteId: page.siteId,
    slug: page.slug,
    type: page.type,
    baseLanguage: page.baseLanguage,
    document: page.document,
    collection: 'pages',
    name: page.name,
    activeRenderers: pagePart(page, 'activeRenderers'),
    renderers: pagePart(page, 'renderers'),
    seo: pagePart(page, 'seo'),
    style: pagePart(page, 'style'),
    data: pagePart(page, 'data'),
    metadata: pagePart(page, 'metadata'),
    tags: stringList(page.tags),
    created: timestamps.created(page),
    modified: timestamps.modified(page),
    lastModified: timestamps.modified(page),
  };
}

function videoFields(video: VideoView): Fields {
  const skus = stringList(video.requiredSkus);
  return {
    id: video.id,
    siteId: video.siteId,
    pageId: video.pageId,
    title: video.title,
    description: video.description,
    type: video.type,
    url: video.url,
    durationSeconds: video.durationSeconds,
    player: video.player,
    thumbnail: video.thumbnail,
    uploadStatus: video.uploadStatus,
    requiredSkus: skus,
    requiredEntitlements: skus.map((sku) => ({ sku })),
    tags: stringList(video.tags),
    created: timestamps.created(video),
    modified: timestamps.modified(video),
  };
}

/** The `contentCheck` field's value, field by field. */
export function contentCheckFields(model: ContentCheckModel): Fields {
  const { contentCheck, deviceCheck, error } = model.canIPlayResponse;
  const video = contentCheck.video.video;
  return {
    canIPlayResponse: {
      contentCheck: { ...contentCheck, video: { video: video ? kept(video, videoFields) : null } },
      deviceCheck,
      error: error ? { type: error.type, message: error.message } : null,
    },
    channel: kept(model.channel, pageFields),
  };
}

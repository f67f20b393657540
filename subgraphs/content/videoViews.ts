/**
 * What a viewer is shown of a video: the one place a video is made into a view for someone who is not
 * its admin (docs/design.md "Paid video stays paid"). The content check makes the view from its own verdict;
 * every other path (a channel's listing, one video by ID, a playlist's members, a reference from
 * another subgraph) asks `viewsForCaller`, which weighs the same rules for the caller it has. A viewer
 * who may not play a video gets what a paywall shows — its ID, title, thumbnail, duration, entitlements
 * and type — and never its URL. A viewer who may play a gated channel's or a paid video's gets its URL
 * signed (shared/playbackSigning.ts) when its provider takes signed playback.
 */
import { hasAdminAccess } from '../../shared/auth/access';
import type { Db } from '../../shared/db/client';
import type { Page, Video } from '../../shared/db/generated/sqlite';
import { stringList } from '../../shared/json';
import { signPlaybackUrl, type PlaybackKey } from '../../shared/playbackSigning';
import { readGate, type Gate } from './pages';
import { DEVICE_WINDOW_MS, recentDevices } from './checkInputs';
import { bannedFromSite } from './playbackBans';
import { Scopes } from './scopes';
import { showOfStream } from './show/channelShow';
import { heldSkus, type EntitlementReader } from './viewerEntitlements';
import { viewerRead, type WithViewerReads } from './viewerReads';

/** A video as one caller sees it: `url` is null when that caller may not play it. */
export type VideoView = Omit<Video, 'url'> & { url: string | null };

/** One withheld view per kept video, so the check's fields built from it are kept too (contentCheckFields.ts). */
const withheldViews = new WeakMap<VideoView, VideoView>();

/** The video without its URL: what a paywall shows. */
export function withheldView(video: VideoView): VideoView {
  if (video.url === null) return video;
  let view = withheldViews.get(video);
  if (!view) withheldViews.set(video, (view = { ...video, url: null }));
  return view;
}

/** The view of a video for a viewer the check (or the listing's rules) lets play it or not. */
export const viewFor = (video: VideoView, mayPlay: boolean): VideoView => (mayPlay ? video : withheldView(video));

/** What signing a view reads with: the kept shows (their contracts' keys) and how long a signed URL plays. */
export interface SigningReader extends WithViewerReads {
  supergraph: EntitlementReader['supergraph'];
  /** PLAYBACK_TOKEN_TTL_SECONDS. */
  playbackTokenTtlSeconds: number;
}

/** What `viewsForCaller` reads with: the caller, its entitlements, the kept pages and shows. */
export interface ViewReader extends EntitlementReader, SigningReader {
  db: Db;
}

/**
 * Whether a video's URL is signed for a viewer: its channel has a gate, or it asks entitlements (open
 * channels' free videos keep plain, cacheable URLs).
 */
export const signsUrl = (gate: Gate, skus: readonly string[]): boolean => gate.kind !== 'none' || skus.length > 0;

/** The stream a video came from (a live video's, a recording's), whose contract's key signs its URL. */
function streamOf(video: VideoView): string | null {
  const source = video.source;
  return source !== null && typeof source === 'object' && !Array.isArray(source) && typeof source.streamId === 'string' ? source.streamId : null;
}

/**
 * The key that signs the video's URL for a viewer who may play it: its provider's, when `signs` (a gated
 * channel, a paid video) or its stream plays signed only; null when it stays plain.
 */
export async function playbackKeyOf(ctx: SigningReader, video: VideoView, signs: boolean): Promise<PlaybackKey | null> {
  const streamId = streamOf(video);
  const show = streamId ? await showOfStream(ctx, video.siteId, streamId) : null;
  return show && (signs || show.signedOnly) ? show.playbackKey : null;
}

/** The last signed view of each kept video, with what it was signed with. */
const lastSigned = new WeakMap<VideoView, { keyId: string; key: string; expires: number; view: VideoView }>();

/**
 * The view with its URL signed until `expires` (Unix seconds). A token binds the stream and the expiry,
 * not the viewer, so the viewers of a kept video who ask within the same second get the same view: one
 * HMAC per video and second at a go-live rather than one per viewer, and the view's text is written once
 * (contentCheckFields.ts keeps the fields of a kept object).
 */
export function signedView(video: VideoView, key: PlaybackKey, expires: number): VideoView {
  if (video.url === null) return video;
  const last = lastSigned.get(video);
  if (last && last.expires === expires && last.keyId === key.keyId && last.key === key.key) return last.view;
  const view = { ...video, url: signPlaybackUrl(video.url, key, expires) };
  lastSigned.set(video, { keyId: key.keyId, key: key.key, expires, view });
  return view;
}

/** Whether a gate lets the caller in with no password and no preview (the listing has neither). */
function gateLetsIn(gate: Gate, signedIn: boolean, held: ReadonlySet<string>): boolean {
  if (gate.kind === 'password') return false;
  if (gate.kind === 'login') return signedIn;
  if (gate.kind === 'subscription') return gate.requiredSkus.some((sku) => held.has(sku));
  return true;
}

const videoLetsIn = (skus: readonly string[], held: ReadonlySet<string>) => skus.length === 0 || skus.some((sku) => held.has(sku));

/**
 * Whether a signed-in account would be over the site's device limit on `deviceId` (no device named: a new
 * one). Only weighed, never counted: the content check counts a device when it lets it play.
 */
async function overDeviceLimit(ctx: ViewReader, siteId: string, accountId: string, deviceId: string | null): Promise<boolean> {
  const site = await viewerRead(ctx, siteId, 'site', () => ctx.db.site.findUniqueOrThrow({ where: { id: siteId } }));
  if (site.deviceLimit <= 0) return false;
  const now = new Date();
  const seen = (await recentDevices(ctx, siteId, accountId, now)).filter((device) => device.lastSeenAt.getTime() >= now.getTime() - DEVICE_WINDOW_MS);
  return !seen.some((device) => device.deviceId === deviceId) && seen.length >= site.deviceLimit;
}

/**
 * The videos as the caller may see them, in the same order. A developer key (or an account with the
 * Videos scope) sees them as stored; anyone else gets a video's URL only when the caller may play it:
 * its channel's gate lets the caller in without a password or a preview, the caller holds an
 * entitlement the video asks for (when it asks one), a signed-in caller is not banned from the site, and its device (`deviceId`; none:
 * a new one) is within the site's device limit.
 */
export async function viewsForCaller(ctx: ViewReader, siteId: string, videos: readonly Video[], deviceId: string | null = null): Promise<VideoView[]> {
  if (hasAdminAccess(ctx.identity, Scopes.videos, { write: false })) return [...videos];
  const { account } = ctx.identity;
  if (account && videos.length > 0 && ((await bannedFromSite(ctx, siteId, account.id)) || (await overDeviceLimit(ctx, siteId, account.id, deviceId))))
    return videos.map(withheldView);
  const pageIds = [...new Set(videos.flatMap((video) => (video.pageId ? [video.pageId] : [])))];
  const pages = await Promise.all(
    pageIds.map((id) => viewerRead<Page | null>(ctx, siteId, `page:${id}`, () => ctx.db.page.findFirst({ where: { siteId, id } }))),
  );
  const gates = new Map(pages.flatMap((page) => (page ? [[page.id, readGate(page.document)] as const] : [])));
  const open: Gate = { kind: 'none', requiredSkus: [], previewSeconds: 0 };
  const weighed = videos.map((video) => ({ video, gate: (video.pageId && gates.get(video.pageId)) || open, skus: stringList(video.requiredSkus) }));
  const signedIn = account !== null;
  const needsSkus = signedIn && weighed.some(({ gate, skus }) => gate.kind === 'subscription' || skus.length > 0);
  const passes = (held: ReadonlySet<string>) => weighed.every(({ gate, skus }) => gateLetsIn(gate, signedIn, held) && videoLetsIn(skus, held));
  const held = needsSkus ? await heldSkus(ctx, siteId, passes) : new Set<string>();
  const expires = Math.floor(Date.now() / 1000) + ctx.playbackTokenTtlSeconds;
  return Promise.all(
    weighed.map(async ({ video, gate, skus }) => {
      if (!(gateLetsIn(gate, signedIn, held) && videoLetsIn(skus, held))) return withheldView(video);
      const key = await playbackKeyOf(ctx, video, signsUrl(gate, skus));
      return key ? signedView(video, key, expires) : video;
    }),
  );
}

/**
 * The content check (canIPlay): whether a viewer may play a channel now, and what. It weighs, in this
 * order: a ban from the site (playbackBans.ts), the site's device limit for the signed-in account, the channel's gate (none, password, login,
 * subscription with a free preview), and the entitlements the current video needs. The viewer's
 * entitlements come from the community subgraph (`me { subscriptions }`), asked only when a gate or
 * video needs them. A channel with a stream of ours is live only while its show is on air, and then
 * offers the live video; offline it may offer its newest recording (subgraphs/content/show/). A viewer
 * it refuses gets the video as a paywall shows it, without its URL (videoViews.ts).
 *
 * The channel's part is read through the viewer-read cache, the account's (entitlements, devices)
 * through checkInputs.ts; `checkContentKept` answers the plain happy case from those alone, which is
 * what a gated go-live is made of (the REST bridge's quick answer, quickCheck.ts).
 */
import { verifyPassword } from '../../shared/auth/credentials';
import type { Identity } from '../../shared/auth/identity';
import { announceAccountAccess } from '../../shared/accountAccess';
import type { EventBus } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import type { Page, Site, Video } from '../../shared/db/generated/sqlite';
import type { PlaybackKey } from '../../shared/playbackSigning';
import { badInput } from '../../shared/errors';
import type { SupergraphClient } from '../../shared/supergraph';
import { heldSkus } from './viewerEntitlements';
import { found, isRecord, stringList } from './checks';
import { DEVICE_FIELDS, DEVICE_WINDOW_MS, recentDevices, type AccountAccessCache, type DeviceRows } from './checkInputs';
import { readGate, type Gate } from './pages';
import { playingNow, scheduleOf } from './schedule';
import { BANNED_ERROR, bannedFromSite } from './playbackBans';
import { liveVideoOf, newestRecording, offersRecording, onAir, showOf, type StreamShow } from './show/channelShow';
import { playbackKeyOf, signedView, signsUrl, viewFor, type VideoView } from './videoViews';
import { viewerRead, type WithViewerReads } from './viewerReads';

export type ContentAccess = 'full' | 'preview' | 'none';

export interface ContentCheckModel {
  canIPlayResponse: {
    contentCheck: {
      access: ContentAccess;
      live: boolean;
      offset: number;
      previewTimeRemainingSeconds: number;
      userHasChannelGateEntitlement: boolean;
      userHasVideoEntitlement: boolean;
      /** The video the channel plays now; to a refused viewer without its URL (videoViews.ts). */
      video: { video: VideoView | null };
    };
    deviceCheck: { accountDevices: Record<string, string>; accountOverDeviceLimit: boolean; siteDeviceLimit: number };
    error: { type: string; message: string } | null;
  };
  channel: Page;
}

export interface ContentCheckRequest {
  pageId?: string | null;
  slug?: string | null;
  deviceId: string;
  password?: string | null;
}

export interface ContentCheckContext extends WithViewerReads {
  db: Db;
  bus: EventBus;
  identity: Identity;
  supergraph: SupergraphClient;
  /** The accounts' entitlements and devices kept on this instance (checkInputs.ts). */
  access: AccountAccessCache;
  /** PLAYBACK_TOKEN_TTL_SECONDS: how long a signed URL the check gives plays. */
  playbackTokenTtlSeconds: number;
}
type Context = ContentCheckContext;

function checkDeviceId(deviceId: string): string {
  const trimmed = deviceId.trim();
  if (!trimmed || trimmed.length > 128) throw badInput('x-service-device-id must be a device ID of 1 to 128 characters', 'deviceId');
  return trimmed;
}

/**
 * How long a device's last sighting stands before a check writes it again. The window it counts in is
 * 30 days, so an hour is precise enough, and a known device checked again (every signed-in viewer of a
 * gated channel at go-live) costs one read instead of a write transaction each.
 */
export const DEVICE_SEEN_REFRESH_MS = 3600 * 1000;

type AccountDevices = { accountDevices: Record<string, string>; over: boolean };

const listed = (devices: { deviceId: string; lastSeenAt: Date }[]) =>
  Object.fromEntries(devices.map((device) => [device.deviceId, device.lastSeenAt.toISOString()]));

/** The last answer `seenDevice` gave from kept rows, until the time it would differ. */
const seenAnswers = new WeakMap<DeviceRows, { deviceId: string; answer: AccountDevices; until: number }>();

/**
 * A known device seen within DEVICE_SEEN_REFRESH_MS among the account's devices (read or kept), answered
 * without writing: the devices in the check's order (the device last); null when it must be written. The
 * answer from the same kept rows for the same device is given again (not to be changed) until a device
 * leaves the window or the device is due to be written: a viewer's check at go-live repeats its lobby's.
 */
export function seenDevice(devices: DeviceRows, deviceId: string, now: Date): AccountDevices | null {
  const at = now.getTime();
  const kept = seenAnswers.get(devices);
  if (kept && kept.deviceId === deviceId && at < kept.until) return kept.answer;
  const seen = devices.filter((device) => device.lastSeenAt.getTime() >= at - DEVICE_WINDOW_MS);
  const known = seen.find((device) => device.deviceId === deviceId);
  if (!known || at - known.lastSeenAt.getTime() >= DEVICE_SEEN_REFRESH_MS) return null;
  const answer = { accountDevices: listed([...seen.filter((device) => device !== known), known]), over: false };
  const leaves = Math.min(...seen.map((device) => device.lastSeenAt.getTime() + DEVICE_WINDOW_MS));
  seenAnswers.set(devices, { deviceId, answer, until: Math.min(leaves, known.lastSeenAt.getTime() + DEVICE_SEEN_REFRESH_MS) });
  return answer;
}

/**
 * Counts the device against the account's devices: a known device is seen again; a new one is added
 * unless the account already plays on as many devices as the site allows (then it is over the limit).
 * A known device seen within DEVICE_SEEN_REFRESH_MS is answered from the kept devices (one read when
 * not kept). A write is announced to every instance, and this one keeps what it wrote.
 */
async function checkDevices(ctx: Context, siteId: string, accountId: string, deviceId: string, limit: number, now: Date): Promise<AccountDevices> {
  const { db, access } = ctx;
  const recent = { siteId, accountId, lastSeenAt: { gte: new Date(now.getTime() - DEVICE_WINDOW_MS) } };
  const answered = seenDevice(await recentDevices(ctx, siteId, accountId, now), deviceId, now);
  if (answered) return answered;
  const mark = access.devices.mark();
  const written = await db.$transaction(async (tx) => {
    const devices = await tx.accountDevice.findMany({ where: recent, orderBy: { firstSeenAt: 'asc' }, select: DEVICE_FIELDS });
    const known = devices.find((device) => device.deviceId === deviceId);
    const over = !known && limit > 0 && devices.length >= limit;
    if (over) return { rows: devices, over };
    await tx.accountDevice.upsert({
      where: { siteId_accountId_deviceId: { siteId, accountId, deviceId } },
      create: { siteId, accountId, deviceId, firstSeenAt: now, lastSeenAt: now },
      update: { lastSeenAt: now },
    });
    const rows = known
      ? devices.map((device) => (device === known ? { ...device, lastSeenAt: now } : device))
      : [...devices, { deviceId, firstSeenAt: now, lastSeenAt: now }];
    return { rows, over };
  });
  if (!written.over) {
    announceAccountAccess(ctx.bus, { siteId, accountId, part: 'devices', origin: access.origin });
    access.devices.set(siteId, accountId, written.rows, mark);
  }
  const counted = written.over ? written.rows : [...written.rows.filter((device) => device.deviceId !== deviceId), { deviceId, lastSeenAt: now }];
  return { accountDevices: listed(counted), over: written.over };
}

/** Seconds of free preview left for this viewer on this channel; the clock starts at the first check. */
async function previewRemaining(db: Db, page: Page, viewerKey: string, seconds: number, now: Date): Promise<number> {
  if (seconds <= 0) return 0;
  const preview = await db.channelPreview.upsert({
    where: { siteId_pageId_viewerKey: { siteId: page.siteId, pageId: page.id, viewerKey } },
    create: { siteId: page.siteId, pageId: page.id, viewerKey, startedAt: now },
    update: {},
  });
  return Math.max(0, seconds - (now.getTime() - preview.startedAt.getTime()) / 1000);
}

/**
 * What the channel plays now: live (its livestream renderer is active and published, and `streamOnAir`:
 * its stream of ours is on air, or it has none), else the scheduled video whose occurrence holds `now`,
 * repeats included (offset = seconds into it; see schedule/occurrences.ts), else its offline video.
 */
export function currentProgram(document: unknown, now: number, streamOnAir = true): { live: boolean; videoId: string | null; offset: number } {
  const doc = isRecord(document) ? document : {};
  const active = isRecord(doc.active_renderers) ? doc.active_renderers : {};
  const renderers = isRecord(doc.renderers) ? doc.renderers : {};
  const livestream = isRecord(renderers.livestream) ? renderers.livestream : {};
  if (active.livestream === true && livestream.livestream_published === true && streamOnAir) {
    return { live: true, videoId: typeof livestream.video_id === 'string' ? livestream.video_id : null, offset: 0 };
  }
  const data = isRecord(doc.data) ? doc.data : {};
  const scheduled = playingNow(scheduleOf(document), now);
  if (scheduled) return { live: false, videoId: scheduled.videoId, offset: scheduled.offset };
  const content = isRecord(data.content) ? data.content : {};
  const offline = isRecord(content.offline) ? content.offline : {};
  const video = isRecord(offline.video) && typeof offline.video._id === 'string' ? offline.video._id : null;
  return { live: false, videoId: video, offset: 0 };
}

async function findChannel(ctx: Context, siteId: string, request: ContentCheckRequest): Promise<Page> {
  const { pageId, slug } = request;
  if (pageId) {
    return found(await viewerRead(ctx, siteId, `page:${pageId}`, () => ctx.db.page.findFirst({ where: { siteId, id: pageId } })), `page ${pageId}`);
  }
  if (slug) {
    return found(
      await viewerRead(ctx, siteId, `page-slug:${slug}`, () => ctx.db.page.findUnique({ where: { siteId_slug: { siteId, slug } } })),
      `page ${slug}`,
    );
  }
  throw badInput('pageId or slug is required', 'pageId');
}

interface Verdict {
  access: ContentAccess;
  error: { type: string; message: string } | null;
}

const refused = (type: string, message: string): Verdict => ({ access: 'none', error: { type, message } });

async function gateVerdict(gate: Gate, page: Page, passed: boolean, password: string | null | undefined, signedIn: boolean): Promise<Verdict | null> {
  if (gate.kind === 'password') {
    if (!password) return refused('gate_password', 'this channel needs its password (x-service-gate-password)');
    if (!page.gatePasswordHash || !(await verifyPassword(password, page.gatePasswordHash))) return refused('gate_password', 'the channel password is wrong');
  }
  if (gate.kind === 'login' && !signedIn) return refused('login_required', 'sign in to watch this channel');
  if (gate.kind === 'subscription' && !passed) {
    const skus = gate.requiredSkus.join(', ') || 'none configured';
    return refused('entitlement_required', `this channel needs one of these entitlements: ${skus}`);
  }
  return null;
}

/** What the check reads of the channel: the same for every viewer, kept per instance until the site's content changes. */
interface ChannelInputs {
  page: Page;
  gate: Gate;
  program: { live: boolean; videoId: string | null; offset: number };
  video: Video | null;
  videoSkus: string[];
  site: Site;
  /** The key that signs the video's URL (its provider's, kept with its show); null when it is not signed. */
  playbackKey: PlaybackKey | null;
}

/** The live video of a kept page and show, one object while both are kept (its fields are then built once). */
const liveVideos = new WeakMap<StreamShow, { page: Page; video: Video }>();

function liveVideo(page: Page, show: StreamShow): Video {
  // Without a start its times are the check's own: built anew each time.
  if (show.startedAt === null) return liveVideoOf(page, show);
  const kept = liveVideos.get(show);
  if (kept?.page === page) return kept.video;
  const video = liveVideoOf(page, show);
  liveVideos.set(show, { page, video });
  return video;
}

async function channelInputs(ctx: Context, siteId: string, request: ContentCheckRequest, now: Date): Promise<ChannelInputs> {
  const page = await findChannel(ctx, siteId, request);
  const gate = readGate(page.document);
  const show = await showOf(ctx, page);
  const program = currentProgram(page.document, now.getTime(), onAir(show));
  const videoId = program.videoId;
  const showVideo =
    program.live && show
      ? liveVideo(page, show)
      : !program.live && videoId === null && offersRecording(page.document)
        ? await newestRecording(ctx, page)
        : null;
  const [site, video] = await Promise.all([
    viewerRead(ctx, siteId, 'site', () => ctx.db.site.findUniqueOrThrow({ where: { id: siteId } })),
    showVideo ?? (videoId ? viewerRead(ctx, siteId, `video:${videoId}`, () => ctx.db.video.findFirst({ where: { id: videoId, siteId } })) : null),
  ]);
  const videoSkus = video ? stringList(video.requiredSkus) : [];
  const playbackKey = video ? await playbackKeyOf(ctx, video, signsUrl(gate, videoSkus)) : null;
  return { page, gate, program, video, videoSkus, site, playbackKey };
}

/** Whether the held SKUs pass the channel's gate and the video's entitlements. */
function entitlementsOf(channel: ChannelInputs, held: ReadonlySet<string>) {
  const { gate, videoSkus } = channel;
  return {
    hasGateEntitlement: gate.kind !== 'subscription' || gate.requiredSkus.some((sku) => held.has(sku)),
    hasVideoEntitlement: videoSkus.length === 0 || videoSkus.some((sku) => held.has(sku)),
  };
}

const needsEntitlements = (channel: ChannelInputs, signedIn: boolean) => signedIn && (channel.gate.kind === 'subscription' || channel.videoSkus.length > 0);

/**
 * The video as this viewer gets it: without its URL when refused; signed (one HMAC) when the channel is
 * gated or the video paid and its provider takes signed playback, until the TTL or a preview's end.
 */
function videoForViewer(ctx: Context, channel: ChannelInputs, verdict: Verdict, previewLeft: number, now: Date): VideoView | null {
  const { video, playbackKey } = channel;
  if (!video || verdict.access === 'none') return video && viewFor(video, false);
  if (!playbackKey) return video;
  const seconds = verdict.access === 'preview' ? Math.min(ctx.playbackTokenTtlSeconds, Math.floor(previewLeft)) : ctx.playbackTokenTtlSeconds;
  return signedView(video, playbackKey, Math.floor(now.getTime() / 1000) + seconds);
}

function modelOf(
  ctx: Context,
  channel: ChannelInputs,
  verdict: Verdict,
  previewLeft: number,
  entitlements: ReturnType<typeof entitlementsOf>,
  devices: AccountDevices,
  now: Date,
): ContentCheckModel {
  const { program, site } = channel;
  return {
    canIPlayResponse: {
      contentCheck: {
        access: verdict.access,
        live: program.live,
        offset: program.offset,
        previewTimeRemainingSeconds: previewLeft,
        userHasChannelGateEntitlement: entitlements.hasGateEntitlement,
        userHasVideoEntitlement: entitlements.hasVideoEntitlement,
        video: { video: videoForViewer(ctx, channel, verdict, previewLeft, now) },
      },
      deviceCheck: { accountDevices: devices.accountDevices, accountOverDeviceLimit: devices.over, siteDeviceLimit: site.deviceLimit },
      error: verdict.error,
    },
    channel: channel.page,
  };
}

const NO_DEVICES: AccountDevices = { accountDevices: {}, over: false };

export async function checkContent(ctx: Context, siteId: string, request: ContentCheckRequest): Promise<ContentCheckModel> {
  const deviceId = checkDeviceId(request.deviceId);
  const now = new Date();
  const channel = await channelInputs(ctx, siteId, request, now);
  const { page, gate, site, videoSkus } = channel;
  const account = ctx.identity.account;
  const passes = (held: ReadonlySet<string>) => Object.values(entitlementsOf(channel, held)).every(Boolean);
  const banned = account !== null && (await bannedFromSite(ctx, siteId, account.id));
  const held = needsEntitlements(channel, Boolean(account)) && !banned ? await heldSkus(ctx, siteId, passes) : new Set<string>();
  // A banned account's device is not counted: it plays on none.
  const devices = account && !banned ? await checkDevices(ctx, siteId, account.id, deviceId, site.deviceLimit, now) : NO_DEVICES;

  const entitlements = entitlementsOf(channel, held);
  let verdict: Verdict = { access: 'full', error: null };
  let previewLeft = 0;
  if (banned) {
    verdict = { access: 'none', error: { ...BANNED_ERROR } };
  } else if (devices.over) {
    verdict = refused('device_limit', `this account already plays on ${site.deviceLimit} device(s), the most this site allows`);
  } else {
    const gateRefusal = await gateVerdict(gate, page, entitlements.hasGateEntitlement, request.password, Boolean(account));
    if (gateRefusal && gate.kind === 'subscription') {
      previewLeft = await previewRemaining(ctx.db, page, account ? `account:${account.id}` : `device:${deviceId}`, gate.previewSeconds, now);
    }
    if (gateRefusal) verdict = previewLeft > 0 ? { access: 'preview', error: null } : gateRefusal;
    else if (!entitlements.hasVideoEntitlement)
      verdict = refused('video_entitlement_required', `this video needs one of these entitlements: ${videoSkus.join(', ')}`);
  }
  return modelOf(ctx, channel, verdict, previewLeft, entitlements, devices, now);
}

/**
 * The check answered from what this instance keeps, in its plain happy case: a viewer the channel lets
 * play in full (no password gate, no preview, no refusal, no ban) whose entitlements (when needed) and known,
 * recently seen device are kept; the channel's reads go through the viewer-read cache as always (one
 * read per instance per change). Anything else is null, and the normal check answers (and fills what
 * is kept). The model is the one `checkContent` gives for the same state.
 */
export async function checkContentKept(ctx: Context, siteId: string, request: ContentCheckRequest): Promise<ContentCheckModel | null> {
  const deviceId = request.deviceId.trim();
  if (!deviceId || deviceId.length > 128 || request.password) return null;
  const now = new Date();
  let channel: ChannelInputs;
  try {
    channel = await channelInputs(ctx, siteId, request, now);
  } catch {
    return null;
  }
  const account = ctx.identity.account;
  if (channel.gate.kind === 'password' || (channel.gate.kind === 'login' && !account)) return null;
  if (account && (await bannedFromSite(ctx, siteId, account.id))) return null;
  let held: string[] | undefined = [];
  if (needsEntitlements(channel, Boolean(account))) held = account ? ctx.access.heldSkus(siteId, account.id) : undefined;
  if (!held) return null;
  const entitlements = entitlementsOf(channel, new Set(held));
  if (!entitlements.hasGateEntitlement || !entitlements.hasVideoEntitlement) return null;
  const rows = account ? ctx.access.devices.get(siteId, account.id) : undefined;
  const devices = account ? rows && seenDevice(rows, deviceId, now) : NO_DEVICES;
  if (!devices) return null;
  return modelOf(ctx, channel, { access: 'full', error: null }, 0, entitlements, devices, now);
}

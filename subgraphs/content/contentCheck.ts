/**
 * The content check (canIPlay): whether a viewer may play a channel now, and what. It weighs, in this
 * order: the site's device limit for the signed-in account, the channel's gate (none, password, login,
 * subscription with a free preview), and the entitlements the current video needs. The viewer's
 * entitlements come from the community subgraph (`me { subscriptions }`), asked only when a gate or
 * video needs them. A channel with a stream of ours is live only while its show is on air, and then
 * offers the live video; offline it may offer its newest recording (subgraphs/content/show/).
 */
import { verifyPassword } from '../../shared/auth/credentials';
import type { Identity } from '../../shared/auth/identity';
import type { EventBus } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import type { Page, Video } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import type { SupergraphClient } from '../../shared/supergraph';
import { found, isRecord, stringList } from './checks';
import { readGate, type Gate } from './pages';
import { playingNow, scheduleOf } from './schedule';
import { liveVideoOf, newestRecording, offersRecording, onAir, showOf } from './show/channelShow';
import { viewerRead, type WithViewerReads } from './viewerReads';

/** Devices not seen for this long no longer count against the limit. */
export const DEVICE_WINDOW_MS = 30 * 24 * 3600 * 1000;

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
      video: { video: Video | null };
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

interface Context extends WithViewerReads {
  db: Db;
  bus: EventBus;
  identity: Identity;
  supergraph: SupergraphClient;
}

const ENTITLEMENTS = /* GraphQL */ `query ContentCheckEntitlements { me { id subscriptions { status entitlement { sku } } } }`;

/** SKUs the signed-in account holds with an active subscription. */
async function heldSkus(ctx: Context): Promise<Set<string>> {
  if (!ctx.identity.account) return new Set();
  const { me } = await ctx.supergraph.execute<{ me: { subscriptions: { status: string; entitlement: { sku: string } }[] } | null }>(
    ENTITLEMENTS,
    {},
    ctx.identity,
  );
  return new Set((me?.subscriptions ?? []).filter((subscription) => subscription.status === 'active').map((subscription) => subscription.entitlement.sku));
}

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

/**
 * Counts the device against the account's devices: a known device is seen again; a new one is added
 * unless the account already plays on as many devices as the site allows (then it is over the limit).
 * A known device seen within DEVICE_SEEN_REFRESH_MS is answered from one read, without writing.
 */
async function checkDevices(db: Db, siteId: string, accountId: string, deviceId: string, limit: number, now: Date): Promise<AccountDevices> {
  const recent = { siteId, accountId, lastSeenAt: { gte: new Date(now.getTime() - DEVICE_WINDOW_MS) } };
  const seen = await db.accountDevice.findMany({ where: recent, orderBy: { firstSeenAt: 'asc' } });
  const known = seen.find((device) => device.deviceId === deviceId);
  if (known && now.getTime() - known.lastSeenAt.getTime() < DEVICE_SEEN_REFRESH_MS)
    return { accountDevices: listed([...seen.filter((device) => device !== known), known]), over: false };
  return db.$transaction(async (tx) => {
    const devices = await tx.accountDevice.findMany({ where: recent, orderBy: { firstSeenAt: 'asc' } });
    const isKnown = devices.some((device) => device.deviceId === deviceId);
    const over = !isKnown && limit > 0 && devices.length >= limit;
    if (!over) {
      await tx.accountDevice.upsert({
        where: { siteId_accountId_deviceId: { siteId, accountId, deviceId } },
        create: { siteId, accountId, deviceId, firstSeenAt: now, lastSeenAt: now },
        update: { lastSeenAt: now },
      });
    }
    const counted = over ? devices : [...devices.filter((device) => device.deviceId !== deviceId), { deviceId, lastSeenAt: now }];
    return { accountDevices: listed(counted), over };
  });
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

export async function checkContent(ctx: Context, siteId: string, request: ContentCheckRequest): Promise<ContentCheckModel> {
  const deviceId = checkDeviceId(request.deviceId);
  const page = await findChannel(ctx, siteId, request);
  const now = new Date();
  const gate = readGate(page.document);
  const show = await showOf(ctx, page);
  const program = currentProgram(page.document, now.getTime(), onAir(show));
  const videoId = program.videoId;
  // The show's own video (live, or the recording after it) goes only to a viewer the check lets play.
  const showVideo =
    program.live && show
      ? liveVideoOf(page, show)
      : !program.live && videoId === null && offersRecording(page.document)
        ? await newestRecording(ctx, page)
        : null;
  const [site, video] = await Promise.all([
    viewerRead(ctx, siteId, 'site', () => ctx.db.site.findUniqueOrThrow({ where: { id: siteId } })),
    showVideo ?? (videoId ? viewerRead(ctx, siteId, `video:${videoId}`, () => ctx.db.video.findFirst({ where: { id: videoId, siteId } })) : null),
  ]);
  const videoSkus = video ? stringList(video.requiredSkus) : [];
  const account = ctx.identity.account;
  const needsEntitlements = Boolean(account) && (gate.kind === 'subscription' || videoSkus.length > 0);
  const held = needsEntitlements ? await heldSkus(ctx) : new Set<string>();
  const devices = account ? await checkDevices(ctx.db, siteId, account.id, deviceId, site.deviceLimit, now) : { accountDevices: {}, over: false };

  const hasGateEntitlement = gate.kind !== 'subscription' || gate.requiredSkus.some((sku) => held.has(sku));
  const hasVideoEntitlement = videoSkus.length === 0 || videoSkus.some((sku) => held.has(sku));
  let verdict: Verdict = { access: 'full', error: null };
  let previewLeft = 0;
  if (devices.over) {
    verdict = refused('device_limit', `this account already plays on ${site.deviceLimit} device(s), the most this site allows`);
  } else {
    const gateRefusal = await gateVerdict(gate, page, hasGateEntitlement, request.password, Boolean(account));
    if (gateRefusal && gate.kind === 'subscription') {
      previewLeft = await previewRemaining(ctx.db, page, account ? `account:${account.id}` : `device:${deviceId}`, gate.previewSeconds, now);
    }
    if (gateRefusal) verdict = previewLeft > 0 ? { access: 'preview', error: null } : gateRefusal;
    else if (!hasVideoEntitlement) verdict = refused('video_entitlement_required', `this video needs one of these entitlements: ${videoSkus.join(', ')}`);
  }

  return {
    canIPlayResponse: {
      contentCheck: {
        access: verdict.access,
        live: program.live,
        offset: program.offset,
        previewTimeRemainingSeconds: previewLeft,
        userHasChannelGateEntitlement: hasGateEntitlement,
        userHasVideoEntitlement: hasVideoEntitlement,
        video: { video: showVideo && verdict.access === 'none' ? null : video },
      },
      deviceCheck: { accountDevices: devices.accountDevices, accountOverDeviceLimit: devices.over, siteDeviceLimit: site.deviceLimit },
      error: verdict.error,
    },
    channel: page,
  };
}

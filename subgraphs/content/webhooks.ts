/**
 * Webhooks a site receives (admin.channelUpdated, poll.closed, poll.resolved, quest.completed): the endpoints it registers, the deliveries written
 * with the change they report (an outbox, so a change is never reported without having happened, nor
 * lost once it has), and the signature receivers verify.
 *
 * What a receiver gets: a POST with the JSON body { id, deliveryId, event, siteId, created, change,
 * eventData } and the headers
 *   x-stagegraph-event: admin.channelUpdated (or the event's name)
 *   x-stagegraph-delivery: <deliveryId>           (the same on every retry: drop duplicates by it)
 *   x-stagegraph-signature: t=<unix ms>,v1=<hex>  (HMAC-SHA256 with the endpoint secret over `${t}.${body}`)
 * Any 2xx answer acknowledges it; anything else (or no answer in time) is retried with exponential backoff.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../shared/db/client';
import { badInput } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { Page, Prisma } from '../../shared/db/generated/sqlite';
import { checkOutboundUrl, type OutboundPolicy } from '../../shared/outbound';
import { checkListSize, checkOptionalText, checkUrl, found, isRecord, stringList } from './checks';

export const WebhookEvents = {
  channelUpdated: 'admin.channelUpdated',
  /** A poll closed; eventData is its final results. */
  pollClosed: 'poll.closed',
  /** A prediction got its right answer (at or after close); eventData is its final results. */
  pollResolved: 'poll.resolved',
  /** An account completed a quest. */
  questCompleted: 'quest.completed',
} as const;
const KNOWN_EVENTS: readonly string[] = Object.values(WebhookEvents);

export type ChannelChange = 'created' | 'updated' | 'deleted';

/** A transaction client or the database: deliveries are written inside the change's transaction. */
type Writer = Prisma.TransactionClient | Db;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function checkEvents(events: readonly string[]): string[] {
  checkListSize(events, 'events', 20);
  if (events.length === 0) throw badInput('events must name at least one event (or *)', 'events');
  events.forEach((event, index) => {
    if (event !== '*' && !KNOWN_EVENTS.includes(event)) throw badInput(`events[${index}] must be * or one of ${KNOWN_EVENTS.join(', ')}`, `events[${index}]`);
  });
  return [...new Set(events)];
}

/** An endpoint's fields checked; its URL must reach a public address (shared/outbound.ts). */
export function checkEndpointFields(input: { url?: string | null; description?: string | null }, policy: OutboundPolicy) {
  const url = input.url === undefined || input.url === null ? undefined : checkUrl(input.url, 'url');
  if (url) checkOutboundUrl(url, 'url', policy);
  return {
    url,
    description: checkOptionalText(input.description, 'description', 500) ?? undefined,
  };
}

export async function findEndpoint(db: Db, siteId: string, id: string) {
  return found(await db.webhookEndpoint.findFirst({ where: { id, siteId } }), `webhook endpoint ${id}`);
}

/** The `x-stagegraph-signature` value of a body sent at `timestamp` (Unix ms). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * What a receiver runs: true when the signature header matches the body and secret and was made within
 * `toleranceMs` of `now` (so a captured delivery cannot be replayed later).
 */
export function verifyWebhookSignature(header: string | undefined, body: string, secret: string, toleranceMs = 5 * 60_000, now = Date.now()): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isFinite(timestamp) || !parts.v1 || Math.abs(now - timestamp) > toleranceMs) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body).split('v1=')[1]);
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The eventData of admin.channelUpdated: the seed's fields, from the channel's document. */
export function channelEventData(page: Page) {
  const document = isRecord(page.document) ? page.document : {};
  const seo = isRecord(document.seo) ? document.seo : {};
  const renderers = isRecord(document.renderers) ? document.renderers : {};
  const livestream = isRecord(renderers.livestream) ? renderers.livestream : {};
  const optional = (key: string) => (typeof seo[key] === 'string' || Array.isArray(seo[key]) ? { [key]: seo[key] } : {});
  return {
    channelId: page.id,
    channelName: page.name,
    event: WebhookEvents.channelUpdated,
    seo: { title: typeof seo.title === 'string' ? seo.title : page.name, ...optional('description'), ...optional('image'), ...optional('keywords') },
    siteId: page.siteId,
    streamId: typeof livestream.stream_id === 'string' ? livestream.stream_id : null,
  };
}

/**
 * Writes one delivery per active endpoint of the site that wants the event, inside the caller's
 * transaction. Returns how many were written (the dispatcher is woken when there are any).
 */
export async function enqueueWebhook(tx: Writer, siteId: string, event: string, change: string, eventData: object): Promise<number> {
  const endpoints = await tx.webhookEndpoint.findMany({ where: { siteId, active: true }, select: { id: true, events: true } });
  const wanted = endpoints.filter((endpoint) => {
    const events = stringList(endpoint.events);
    return events.includes('*') || events.includes(event);
  });
  if (wanted.length === 0) return 0;
  const eventId = newId();
  const now = new Date();
  await tx.webhookDelivery.createMany({
    data: wanted.map((endpoint) => {
      const deliveryId = newId();
      const body = JSON.stringify({ id: eventId, deliveryId, event, siteId, created: now.getTime(), change, eventData });
      return { id: deliveryId, siteId, endpointId: endpoint.id, event, body, status: 'pending', nextAttemptAt: now, createdAt: now, updatedAt: now };
    }),
  });
  return wanted.length;
}

/** admin.channelUpdated for a change of a channel (landing pages report nothing). */
export function enqueueChannelUpdated(tx: Writer, page: Page, change: ChannelChange): Promise<number> {
  if (page.type !== 'channel') return Promise.resolve(0);
  return enqueueWebhook(tx, page.siteId, WebhookEvents.channelUpdated, change, channelEventData(page));
}

/**
 * Rooms: per site, the viewers' groups by channel and the site's live broadcasts, which late joiners get
 * (with the time left) when they subscribe. A room loads the live broadcasts once, when its first viewer
 * subscribes, follows SHOW and CLEAR events from the bus meanwhile, and goes when its last viewer leaves.
 */
import { type BusDelivery } from '../../shared/bus';
import { recordFanout } from '../../shared/metrics';
import { withLinkedSpan } from '../../shared/tracing';
import type { Logger } from '../../shared/logger';
import { withRemaining, clearEventOf, inAudience, type OverlayBroadcastEvent, type OverlayBroadcastMessage } from '../../shared/contracts/liveEvents';
import { sendFrame, type Connection, type Group, type Room, type Subscriber } from './groups';

export type { Room } from './groups';
import type { RenderedEvent } from './viewerChannel';

/** The viewers of one site, by channel (`''` = site-wide viewers), and the site's live broadcasts. */
export interface RoomsOptions {
  /** Broadcasts of a site that are live now (what late joiners get). */
  loadActiveBroadcasts(siteId: string): Promise<OverlayBroadcastEvent[]>;
  logger: Logger;
  /** Sends an event to the viewers of a room it reaches; returns the number of frames sent. */
  fanOut(room: Room, event: OverlayBroadcastEvent): number;
  /** The group's selection executed on an event, as the rest of a `next` frame. */
  payloadFor(group: Group, event: OverlayBroadcastEvent): RenderedEvent;
}

/** A live broadcast as late joiners of a group receive it: rendered once, at `at`. */
type CatchUpRendering = { at: number; event: OverlayBroadcastEvent; payload: RenderedEvent };

export class Rooms {
  private readonly rooms = new Map<string, Room>();
  /** The latest catch-up rendering of each live broadcast, by group (see `catchUp`). */
  private readonly catchUps = new WeakMap<Group, Map<string, CatchUpRendering>>();

  constructor(private readonly options: RoomsOptions) {}

  /** Subscribers registered in every room. */
  subscriptions(): number {
    let subscriptions = 0;
    for (const room of this.rooms.values()) subscriptions += room.size;
    return subscriptions;
  }

  close(): void {
    for (const room of this.rooms.values()) for (const timer of room.expiries.values()) clearTimeout(timer);
    this.rooms.clear();
  }

  /** The room of a site, made (and its live broadcasts loading) on first use. */
  of(siteId: string): Room {
    const room = this.rooms.get(siteId);
    if (room) return room;
    const created: Room = {
      siteId,
      channels: new Map(),
      active: new Map(),
      clearedDuringLoad: new Set(),
      expiries: new Map(),
      loaded: Promise.resolve(),
      size: 0,
      pending: 0,
    };
    created.loaded = this.options
      .loadActiveBroadcasts(siteId)
      .then((events) => {
        for (const event of events) {
          if (!created.clearedDuringLoad.has(event.broadcastId) && !created.active.has(event.broadcastId)) this.remember(created, event);
        }
      })
      .catch((error: Error) => this.options.logger.warn({ err: error.message, siteId }, 'could not load live broadcasts'))
      .finally(() => created.clearedDuringLoad.clear());
    this.rooms.set(siteId, created);
    return created;
  }

  dropIfEmpty(room: Room): void {
    if (room.size > 0 || room.pending > 0 || this.rooms.get(room.siteId) !== room) return;
    for (const timer of room.expiries.values()) clearTimeout(timer);
    this.rooms.delete(room.siteId);
  }

  /**
   * A late joiner gets what is live now, with the time left, taken between its asking (`askedAt`, when
   * it subscribed) and its receiving. Joiners of a group share a rendering made since they asked: a join
   * storm executes and frames a live broadcast about once per turn of the loop, not once per viewer.
   */
  catchUp(room: Room, subscriber: Subscriber, askedAt: number): void {
    const { group } = subscriber;
    if (room.active.size === 0) return;
    let renderings = this.catchUps.get(group);
    if (!renderings) this.catchUps.set(group, (renderings = new Map<string, CatchUpRendering>()));
    const now = Date.now();
    for (const event of room.active.values()) {
      if (!reaches(event, group.channelKey, subscriber.connection)) continue;
      let shared = renderings.get(event.broadcastId);
      if (!shared || shared.event !== event || shared.at < askedAt) {
        shared = { at: now, event, payload: this.options.payloadFor(group, withRemaining(event, now)) };
        renderings.set(event.broadcastId, shared);
      }
      sendFrame(subscriber, shared.payload);
    }
    // Broadcasts no longer live are not rendered for joiners again.
    for (const broadcastId of renderings.keys()) if (!room.active.has(broadcastId)) renderings.delete(broadcastId);
  }

  onBusMessage(message: OverlayBroadcastMessage, delivery?: BusDelivery): void {
    const room = this.rooms.get(message?.siteId);
    if (!room || !message.event) return;
    const { event } = message;
    if (event.kind === 'SHOW') this.remember(room, event);
    else this.forget(room, event.broadcastId);
    // The delivery is a trace of its own, linked to the call that published the broadcast.
    withLinkedSpan('overlay broadcast fan-out', delivery?.traceparent, { 'stagegraph.broadcast.kind': event.kind }, () => {
      recordFanout(event.kind, delivery?.publishedAt, this.options.fanOut(room, event));
    });
  }

  private remember(room: Room, event: OverlayBroadcastEvent): void {
    const left = event.expiresAt - Date.now();
    if (left <= 0) return;
    room.active.set(event.broadcastId, event);
    const timer = setTimeout(() => {
      room.expiries.delete(event.broadcastId);
      if (room.active.delete(event.broadcastId)) this.options.fanOut(room, clearEventOf(event));
    }, left);
    timer.unref();
    room.expiries.set(event.broadcastId, timer);
  }

  private forget(room: Room, broadcastId: string): void {
    room.active.delete(broadcastId);
    room.clearedDuringLoad.add(broadcastId);
    const timer = room.expiries.get(broadcastId);
    if (timer) clearTimeout(timer);
    room.expiries.delete(broadcastId);
  }
}

/** Whether an event is for viewers of `channelKey` on this connection. */
function reaches(event: OverlayBroadcastEvent, channelKey: string, connection: Connection): boolean {
  if (event.channelId !== null && event.channelId !== channelKey) return false;
  return inAudience(event, connection.tags);
}

/**
 * Fan-out of live subscriptions, built for many thousands of viewers per channel: viewers that sent the
 * same operation with the same variables share a group; an event is executed once per group, its payload
 * serialized once, and each viewer only gets its own frame prefix. Per-viewer state is a few small fields.
 * Feeds (the other subscription fields, for admins, with few subscribers each) get each event executed
 * for each subscriber whose arguments it matches.
 */
import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { HeaderBag } from '../../shared/auth/authenticate';
import type { Identity } from '../../shared/auth/identity';
import { withRemaining, inAudience, type OverlayBroadcastEvent } from '../../shared/contracts/liveEvents';
import { RenderedEvent, type ViewerChannel } from './viewerChannel';

/** A subscription field fed by one bus topic of `{ siteId, event }` messages. */
export interface LiveFeed {
  topic: string;
  /** Throws a GraphQLError when the identity may not subscribe with these arguments. */
  authorize(identity: Identity, args: Record<string, unknown>): void;
  /** Whether an event goes to a subscriber that gave these arguments. */
  matches(event: unknown, args: Record<string, unknown>): boolean;
  /**
   * Which audience of its site a subscriber belongs to (its account, for a viewer's own progress): a
   * message entry with an `audience` reaches only that audience's subscribers, found in one lookup.
   */
  audienceOf?(identity: Identity): string;
}

/** The overlay broadcasts of one site on this instance: its channels' groups and what is live. */
export interface Room {
  siteId: string;
  channels: Map<string, Map<string, Group>>;
  active: Map<string, OverlayBroadcastEvent>;
  clearedDuringLoad: Set<string>;
  expiries: Map<string, NodeJS.Timeout>;
  loaded: Promise<void>;
  /** Subscribers registered, and subscriptions still waiting for `loaded`. */
  size: number;
  pending: number;
}

/** One viewer connection, whatever its transport (a socket, an SSE stream, a multipart response). */
export interface Connection {
  channel: ViewerChannel;
  identity: Identity;
  /** The viewer's device (`x-service-device-id`: connectionParams, or an HTTP stream's header), as the content check names it; null when not given. */
  deviceId: string | null;
  tags: Set<string> | null;
  /** By operation id; null while the subscription waits for its site's live broadcasts. */
  subscribers: Map<string, Subscriber | null>;
  /** Feed subscriptions by operation id. */
  feeds: Map<string, FeedSubscriber>;
  /** Stream subscriptions (liveStreams.ts) by operation id: what stops each. */
  streams: Map<string, () => void>;
}

/** The device a connection names (`x-service-device-id`, as the content check takes it: 1 to 128 characters); null otherwise. */
export function deviceIdOf(headers: HeaderBag): string | null {
  const value = headers['x-service-device-id'];
  const device = (Array.isArray(value) ? value[0] : value)?.trim();
  return typeof device === 'string' && device.length > 0 && device.length <= 128 ? device : null;
}

/** A feed's bus message: one event for the site (or for one audience of it), or a batch of them. */
export interface FeedMessage {
  siteId: string;
  event?: unknown;
  audience?: string;
  events?: { audience?: string; event: unknown }[];
}

export interface FeedSubscriber {
  connection: Connection;
  framePrefix: Buffer;
  field: string;
  /** Where it is filed: its site, or its site and audience when the feed has audiences (LiveFeed.audienceOf). */
  key: string;
  document: DocumentNode;
  variables: Record<string, unknown>;
  args: Record<string, unknown>;
}

export interface Subscriber {
  connection: Connection;
  /** The only per-viewer part of a frame (ViewerChannel.framePrefix), encoded once. */
  framePrefix: Buffer;
  group: Group;
}

export interface Group {
  key: string;
  room: Room;
  channelKey: string;
  document: DocumentNode;
  variables: Record<string, unknown>;
  subscribers: Set<Subscriber>;
}

export const SITE_WIDE = '';

/** Adds a viewer to the group of its channel, operation and variables, making the group on first use. */
export function joinGroup(
  room: Room,
  channelKey: string,
  groupKey: string,
  document: DocumentNode,
  variables: Record<string, unknown>,
  connection: Connection,
  framePrefix: Buffer,
): Subscriber {
  let channel = room.channels.get(channelKey);
  if (!channel) room.channels.set(channelKey, (channel = new Map<string, Group>()));
  let group = channel.get(groupKey);
  if (!group) {
    group = { key: groupKey, room, channelKey, document, variables, subscribers: new Set() };
    channel.set(groupKey, group);
  }
  const subscriber: Subscriber = { connection, framePrefix, group };
  group.subscribers.add(subscriber);
  return subscriber;
}

/** Takes a viewer out of its group, and the group out of its room when it was the last; false when it was not in it. */
export function leaveGroup(subscriber: Subscriber): boolean {
  const { group } = subscriber;
  if (!group.subscribers.delete(subscriber)) return false;
  if (group.subscribers.size === 0) {
    const channel = group.room.channels.get(group.channelKey);
    channel?.delete(group.key);
    if (channel?.size === 0) group.room.channels.delete(group.channelKey);
  }
  return true;
}

/** Sends an event to the viewers of a room it reaches; returns the number of frames sent. */
export function fanOut(schema: () => GraphQLSchema, room: Room, event: OverlayBroadcastEvent): number {
  let frames = 0;
  const targets: Map<string, Group>[] = [];
  if (event.channelId === null) targets.push(...room.channels.values());
  else {
    const channel = room.channels.get(event.channelId);
    if (channel) targets.push(channel);
  }
  const timed = withRemaining(event);
  for (const channel of targets) {
    for (const group of channel.values()) {
      let payload: RenderedEvent | null = null;
      for (const subscriber of group.subscribers) {
        if (!inAudience(event, subscriber.connection.tags)) continue;
        payload ??= payloadFor(schema, group, timed);
        sendFrame(subscriber, payload);
        frames += 1;
      }
    }
  }
  return frames;
}

/** Executes the group's selection on the event once, and serializes the result once. */
export function payloadFor(schema: () => GraphQLSchema, group: Group, event: OverlayBroadcastEvent): RenderedEvent {
  return executeFrame(schema, group.document, group.variables, { overlayBroadcasts: event });
}

/** A selection executed on an event, serialized once; each transport encodes it once (RenderedEvent.frame). */
export function executeFrame(
  schema: () => GraphQLSchema,
  document: DocumentNode,
  variableValues: Record<string, unknown>,
  rootValue: Record<string, unknown>,
): RenderedEvent {
  const result = execute({ schema: schema(), document, rootValue, variableValues }) as ExecutionResult;
  return new RenderedEvent(JSON.stringify(result));
}

export function sendFrame(subscriber: { connection: Connection; framePrefix: Buffer }, payload: RenderedEvent): void {
  subscriber.connection.channel.next(subscriber.framePrefix, payload);
}

/** Feed subscribers by field, then by site. */
export class Feeds {
  private readonly subscribers = new Map<string, Map<string, Set<FeedSubscriber>>>();
  /** Feed subscriptions held now (for stats). */
  count = 0;

  constructor(private readonly schema: () => GraphQLSchema) {}

  add(subscriber: FeedSubscriber): void {
    const { field, key } = subscriber;
    let sites = this.subscribers.get(field);
    if (!sites) this.subscribers.set(field, (sites = new Map<string, Set<FeedSubscriber>>()));
    let set = sites.get(key);
    if (!set) sites.set(key, (set = new Set()));
    set.add(subscriber);
    this.count += 1;
  }

  remove(subscriber: FeedSubscriber): void {
    const sites = this.subscribers.get(subscriber.field);
    const set = sites?.get(subscriber.key);
    if (!set?.delete(subscriber)) return;
    this.count -= 1;
    if (set.size === 0) sites?.delete(subscriber.key);
  }

  /** The key a subscriber of `feed` is filed under: its site, and its audience when the feed has audiences. */
  static keyOf(feed: LiveFeed, identity: Identity): string {
    return feed.audienceOf ? `${identity.siteId}\u0000${feed.audienceOf(identity)}` : (identity.siteId as string);
  }

  /** One event for the site (or one audience of it), or a batch of them: a message for one account is one lookup. */
  onMessage(field: string, feed: LiveFeed, message: FeedMessage): void {
    const sites = this.subscribers.get(field);
    if (!sites || typeof message?.siteId !== 'string') return;
    const entries = Array.isArray(message.events) ? message.events : [{ audience: message.audience, event: message.event }];
    for (const { audience, event } of entries) {
      const set = sites.get(audience === undefined ? message.siteId : `${message.siteId}\u0000${audience}`);
      if (!set || event === undefined) continue;
      for (const subscriber of set) {
        if (!feed.matches(event, subscriber.args)) continue;
        sendFrame(subscriber, executeFrame(this.schema, subscriber.document, subscriber.variables, { [field]: event }));
      }
    }
  }
}

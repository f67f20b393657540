/**
 * Live viewers: the graphql-ws protocol (graphql-transport-ws) on the gateway's /graphql path.
 * @apollo/gateway cannot execute subscriptions, so this server executes `overlayBroadcasts` itself
 * against the supergraph's API schema, fed by the event bus.
 *
 * Fan-out is built for many thousands of viewers per channel: viewers that sent the same operation
 * with the same variables share a group; an event is executed once per group, its payload serialized
 * once, and each viewer only gets its own frame prefix. Per-viewer state is a few small fields.
 * Queries and mutations sent over the socket are executed through the gateway like HTTP ones.
 * Other subscription fields (for admins, with few subscribers each) are feeds: a bus topic per field,
 * each event executed for each subscriber whose arguments it matches.
 */
import {
  execute,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  validate,
  GraphQLError,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import {
  CloseCode,
  GRAPHQL_TRANSPORT_WS_PROTOCOL,
  MessageType,
  parseMessage,
  stringifyMessage,
  handleProtocols,
  type SubscribeMessage,
} from 'graphql-ws';
import type { IncomingMessage, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { Topics, type BusDelivery, type EventBus } from '../shared/bus';
import { recordFanout, recordViewerDropped } from '../shared/metrics';
import { withLinkedSpan } from '../shared/tracing';
import type { HeaderBag } from '../shared/auth/authenticate';
import type { Identity } from '../shared/auth/identity';
import { ErrorCode } from '../shared/errors';
import { jsonValueProblem } from '../shared/jsonInput';
import type { Logger } from '../shared/logger';
import { seesSchemaHints, withoutSuggestions, type DocumentLimits } from './documentLimits';
import type { LiveStream } from './liveStream';
import { withRemaining, clearEventOf, inAudience, type OverlayBroadcastEvent, type OverlayBroadcastMessage } from '../subgraphs/overlays/broadcasts';

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

/** A feed's bus message: one event for the site (or an audience), or a batch of them. */
interface FeedMessage {
  siteId: string;
  event?: unknown;
  audience?: string;
  events?: { audience?: string; event: unknown }[];
}

/** Told when a signed-in account's overlayBroadcasts subscription to a channel starts and stops (quests' watch time, gateway/watchTime.ts). */
export interface WatchTimeHooks {
  watch(siteId: string, accountId: string, channelId: string): void;
  unwatch(siteId: string, accountId: string, channelId: string): void;
}

export interface LiveServerOptions {
  /** URL path of the endpoint (the gateway's /graphql). */
  path: string;
  /** The supergraph's API schema: what subscriptions are validated and executed against. */
  schema(): GraphQLSchema;
  /** The gateway's document limits, met before a subscription's document is validated. */
  limits: DocumentLimits;
  /**
   * Live subscriptions one socket may hold at once (default 10). One more is answered with an `error`
   * message for its id (code RATE_LIMITED): the socket and its other subscriptions stay, and a
   * graphql-ws client sees the error on that subscription's sink, without reconnecting.
   */
  maxSubscriptionsPerSocket?: number;
  /** Turns connectionParams (as headers) into an identity; throws when a credential is wrong. */
  authenticate(headers: HeaderBag): Promise<Identity>;
  /** Executes a query or mutation through the gateway. */
  executeOperation(request: { query: string; variables?: Record<string, unknown>; operationName?: string | null }, identity: Identity): Promise<ExecutionResult>;
  /** Broadcasts of a site that are live now (what late joiners get). */
  loadActiveBroadcasts(siteId: string): Promise<OverlayBroadcastEvent[]>;
  /** Tags of the signed-in viewer's account (for tag-targeted broadcasts). */
  loadViewerTags(identity: Identity): Promise<string[]>;
  bus: EventBus;
  logger: Logger;
  /** Subscription fields besides overlayBroadcasts, by field name. */
  feeds?: Record<string, LiveFeed>;
  /** Subscription fields a module of their own serves (gateway/liveStream.ts), by field name. */
  streams?: Record<string, LiveStream>;
  /** Milliseconds a socket may take to send connection_init (default 3000). */
  connectionInitWaitTimeoutMs?: number;
  /** Milliseconds between keep-alive pings; a socket that misses one is dropped (default 30000). */
  keepAliveMs?: number;
  /** Milliseconds between viewer-presence reports on the bus, for insights (default 5000). */
  presenceIntervalMs?: number;
  /** Counts signed-in viewers' watch time for quests; O(1) per subscription start and stop. */
  watchTime?: WatchTimeHooks;
}

/** Live viewers of one channel (`channelId` '' = site-wide viewers) on one instance. */
export interface PresenceEntry {
  siteId: string;
  channelId: string;
  /** Viewers subscribed now. */
  concurrents: number;
  /** Subscriptions started since this instance started. */
  views: number;
}

/** What each instance reports on the bus every few seconds. */
export interface PresenceReport {
  instanceId: string;
  at: number;
  entries: PresenceEntry[];
}

interface Connection {
  socket: WebSocket;
  identity: Identity | null;
  state: 'new' | 'initialising' | 'ready';
  tags: Set<string> | null;
  /** By operation id; null while the subscription waits for its site's live broadcasts. */
  subscribers: Map<string, Subscriber | null>;
  /** Feed subscriptions by operation id. */
  feeds: Map<string, FeedSubscriber>;
  /** Stream subscriptions by operation id: what stops each. */
  streams: Map<string, () => void>;
  alive: boolean;
}

interface FeedSubscriber {
  connection: Connection;
  framePrefix: Buffer;
  field: string;
  /** Where it is filed: its site, or site and audience (see LiveFeed.audienceOf). */
  key: string;
  document: DocumentNode;
  variables: Record<string, unknown>;
  args: Record<string, unknown>;
}

interface Subscriber {
  connection: Connection;
  /** `{"id":"…","type":"next","payload":` — the only per-viewer part of a frame, encoded once. */
  framePrefix: Buffer;
  group: Group;
}

interface Group {
  key: string;
  room: Room;
  channelKey: string;
  document: DocumentNode;
  variables: Record<string, unknown>;
  subscribers: Set<Subscriber>;
}

/** The viewers of one site, by channel (`''` = site-wide viewers), and the site's live broadcasts. */
interface Room {
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

const SITE_WIDE = '';

/** `{"id":"…","type":"next","payload":` — the only per-subscriber part of a frame, encoded once. */
const framePrefixOf = (id: string) => Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const DOCUMENT_CACHE_LIMIT = 1000;
const CACHED_DOCUMENT_MAX_LENGTH = 16 * 1024;

type Prepared = { document: DocumentNode; operation: OperationDefinitionNode } | { errors: readonly GraphQLError[] };

export class LiveServer {
  private readonly wss: WebSocketServer;
  private readonly rooms = new Map<string, Room>();
  private readonly documents = new Map<string, Prepared>();
  private readonly connections = new Set<Connection>();
  /** Viewer counts by site and channel, kept across rooms so views accumulate for the instance's life. */
  private readonly presence = new Map<string, PresenceEntry & { reported: string }>();
  private readonly presenceTimer: NodeJS.Timeout;
  readonly instanceId = randomUUID();
  private readonly unsubscribeBus: (() => void)[];
  /** Feed subscribers by field, then by site. */
  private readonly feedSubscribers = new Map<string, Map<string, Set<FeedSubscriber>>>();
  private feedCount = 0;
  private readonly keepAlive: NodeJS.Timeout;
  private cachedSchema: GraphQLSchema | null = null;

  constructor(private readonly options: LiveServerOptions) {
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024, handleProtocols, clientTracking: false });
    this.unsubscribeBus = [
      options.bus.subscribe(Topics.overlayBroadcasts, (message, delivery) => this.onBusMessage(message as OverlayBroadcastMessage, delivery)),
      ...Object.entries(options.feeds ?? {}).map(([field, feed]) =>
        options.bus.subscribe(feed.topic, (message) => this.onFeedMessage(field, feed, message as FeedMessage)),
      ),
    ];
    this.keepAlive = setInterval(() => this.sweep(), options.keepAliveMs ?? 30_000);
    this.presenceTimer = setInterval(() => this.reportPresence(), options.presenceIntervalMs ?? 5000);
    this.presenceTimer.unref();
    this.keepAlive.unref();
  }

  /** Takes over WebSocket upgrades of `path` on the HTTP server. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket, head) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== this.options.path) {
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.onConnection(ws));
    });
  }

  /** Number of open viewer connections and subscriptions (for insights and tests). */
  stats(): { connections: number; subscriptions: number } {
    let subscriptions = 0;
    for (const room of this.rooms.values()) subscriptions += room.size;
    return { connections: this.connections.size, subscriptions: subscriptions + this.feedCount };
  }

  /** Closes every socket with 1001 (going away) so clients reconnect elsewhere. */
  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribeBus) unsubscribe();
    for (const stream of Object.values(this.options.streams ?? {})) stream.close?.();
    clearInterval(this.keepAlive);
    clearInterval(this.presenceTimer);
    for (const connection of this.connections) connection.socket.close(1001, 'Server shutting down');
    for (const room of this.rooms.values()) for (const timer of room.expiries.values()) clearTimeout(timer);
    this.rooms.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private schema(): GraphQLSchema {
    const schema = this.options.schema();
    if (schema !== this.cachedSchema) {
      this.cachedSchema = schema;
      this.documents.clear();
    }
    return schema;
  }

  // ------------------------------------------------------------------ connections

  private onConnection(socket: WebSocket): void {
    if (socket.protocol !== GRAPHQL_TRANSPORT_WS_PROTOCOL) {
      socket.close(CloseCode.SubprotocolNotAcceptable, 'Subprotocol not acceptable');
      return;
    }
    const connection: Connection = { socket, identity: null, state: 'new', tags: null, subscribers: new Map(), feeds: new Map(), streams: new Map(), alive: true };
    this.connections.add(connection);
    const initTimer = setTimeout(() => {
      if (connection.state !== 'ready') socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
    }, this.options.connectionInitWaitTimeoutMs ?? 3000);
    socket.on('pong', () => {
      connection.alive = true;
    });
    socket.on('message', (data: RawData) => {
      this.onMessage(connection, data).catch((error: Error) => {
        this.options.logger.error({ err: error }, 'live message handling failed');
        socket.close(CloseCode.InternalServerError, 'Internal server error');
      });
    });
    socket.once('close', () => {
      clearTimeout(initTimer);
      this.connections.delete(connection);
      for (const subscriber of connection.subscribers.values()) if (subscriber) this.removeSubscriber(subscriber);
      connection.subscribers.clear();
      for (const subscriber of connection.feeds.values()) this.removeFeedSubscriber(subscriber);
      connection.feeds.clear();
      for (const stop of connection.streams.values()) stop();
      connection.streams.clear();
    });
    socket.on('error', () => socket.terminate());
  }

  private sweep(): void {
    for (const connection of this.connections) {
      if (!connection.alive) {
        recordViewerDropped('keepalive_missed');
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  private async onMessage(connection: Connection, data: RawData): Promise<void> {
    const { socket } = connection;
    let message;
    try {
      message = parseMessage(data.toString());
    } catch (error) {
      socket.close(CloseCode.BadRequest, (error as Error).message.slice(0, 120));
      return;
    }
    switch (message.type) {
      case MessageType.ConnectionInit: {
        if (connection.state !== 'new') {
          socket.close(CloseCode.TooManyInitialisationRequests, 'Too many initialisation requests');
          return;
        }
        connection.state = 'initialising';
        await this.initialise(connection, message.payload ?? {});
        return;
      }
      case MessageType.Ping:
        socket.send(stringifyMessage({ type: MessageType.Pong }));
        return;
      case MessageType.Pong:
        return;
      case MessageType.Subscribe:
        if (connection.state !== 'ready' || !connection.identity) {
          socket.close(CloseCode.Unauthorized, 'Unauthorized');
          return;
        }
        if (connection.subscribers.has(message.id) || connection.feeds.has(message.id) || connection.streams.has(message.id)) {
          socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${message.id} already exists`);
          return;
        }
        await this.subscribe(connection, message);
        return;
      case MessageType.Complete: {
        const subscriber = connection.subscribers.get(message.id);
        connection.subscribers.delete(message.id);
        if (subscriber) this.removeSubscriber(subscriber);
        const feedSubscriber = connection.feeds.get(message.id);
        connection.feeds.delete(message.id);
        if (feedSubscriber) this.removeFeedSubscriber(feedSubscriber);
        connection.streams.get(message.id)?.();
        connection.streams.delete(message.id);
        return;
      }
      default:
        socket.close(CloseCode.BadRequest, `Unexpected message of type ${message.type} received`);
    }
  }

  private async initialise(connection: Connection, params: Record<string, unknown>): Promise<void> {
    const { socket } = connection;
    const headers: HeaderBag = {};
    const pick = (...names: string[]) => names.map((name) => params[name]).find((value) => typeof value === 'string') as string | undefined;
    headers['x-service-client-id'] = pick('x-service-client-id', 'clientId', 'siteId');
    headers['x-service-developer-key'] = pick('x-service-developer-key', 'developerKey');
    const token = pick('Authorization', 'authorization', 'jwt');
    headers.authorization = token && !/^Bearer /i.test(token) ? `Bearer ${token}` : token;
    try {
      const identity = await this.options.authenticate(headers);
      if (!identity.siteId) {
        socket.close(CloseCode.Forbidden, 'x-service-client-id is required in connectionParams');
        return;
      }
      connection.tags = identity.account ? new Set(await this.options.loadViewerTags(identity)) : null;
      connection.identity = identity;
    } catch (error) {
      socket.close(CloseCode.Forbidden, error instanceof GraphQLError ? error.message.slice(0, 120) : 'Forbidden');
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) return;
    connection.state = 'ready';
    socket.send(stringifyMessage({ type: MessageType.ConnectionAck }));
  }

  // ------------------------------------------------------------------ operations

  private prepare(query: string, operationName: string | null | undefined): Prepared {
    const key = `${operationName ?? ''}\u0000${query}`;
    let prepared = this.documents.get(key);
    if (prepared) return prepared;
    const schema = this.schema();
    try {
      const limited = this.options.limits.parse(query);
      if ('errors' in limited) prepared = limited;
      else {
        const { document } = limited;
        const errors = validate(schema, document);
        const operation = getOperationAST(document, operationName);
        if (errors.length > 0) prepared = { errors };
        else if (!operation) prepared = { errors: [new GraphQLError('Could not determine the operation to execute')] };
        else prepared = { document, operation };
      }
    } catch (error) {
      prepared = { errors: [error as GraphQLError] };
    }
    // Only documents that prepared well, and not long ones: a stream of distinct hostile documents must
    // not fill the cache with large keys.
    if ('errors' in prepared || key.length > CACHED_DOCUMENT_MAX_LENGTH) return prepared;
    if (this.documents.size >= DOCUMENT_CACHE_LIMIT) this.documents.delete(this.documents.keys().next().value as string);
    this.documents.set(key, prepared);
    return prepared;
  }

  private sendErrors(connection: Connection, id: string, errors: readonly (GraphQLError | GraphQLFormattedError)[]): void {
    const hints = seesSchemaHints(connection.identity);
    const payload = errors.map((error) => {
      const formatted = error instanceof GraphQLError ? error.toJSON() : error;
      return hints ? formatted : { ...formatted, message: withoutSuggestions(formatted.message) };
    });
    connection.socket.send(JSON.stringify({ id, type: MessageType.Error, payload }));
  }

  private async subscribe(connection: Connection, message: SubscribeMessage): Promise<void> {
    const identity = connection.identity as Identity;
    const { id, payload } = message;
    // The same input rule as /graphql over HTTP (shared/jsonInput): refused before anything runs.
    const problem = jsonValueProblem({ query: payload.query, variables: payload.variables ?? {} }, '');
    if (problem) {
      this.sendErrors(connection, id, [new GraphQLError(problem, { extensions: { code: ErrorCode.BAD_USER_INPUT } })]);
      return;
    }
    const prepared = this.prepare(payload.query, payload.operationName);
    if ('errors' in prepared) {
      this.sendErrors(connection, id, prepared.errors);
      return;
    }
    if (prepared.operation.operation !== 'subscription') {
      const result = await this.options.executeOperation(
        { query: payload.query, variables: payload.variables ?? undefined, operationName: payload.operationName },
        identity,
      );
      if (connection.socket.readyState !== WebSocket.OPEN) return;
      connection.socket.send(JSON.stringify({ id, type: MessageType.Next, payload: result }));
      connection.socket.send(stringifyMessage({ id, type: MessageType.Complete }));
      return;
    }
    const cap = this.options.maxSubscriptionsPerSocket ?? 10;
    if (connection.subscribers.size + connection.feeds.size + connection.streams.size >= cap) {
      this.sendErrors(connection, id, [
        new GraphQLError(`a connection may hold at most ${cap} subscriptions; complete one first`, { extensions: { code: ErrorCode.RATE_LIMITED } }),
      ]);
      return;
    }
    const schema = this.schema();
    const coerced = getVariableValues(schema, prepared.operation.variableDefinitions ?? [], payload.variables ?? {});
    if (coerced.errors) {
      this.sendErrors(connection, id, coerced.errors);
      return;
    }
    const field = prepared.operation.selectionSet.selections[0];
    const subscriptionType = schema.getSubscriptionType();
    const fieldDef = field?.kind === 'Field' ? subscriptionType?.getFields()[field.name.value] : undefined;
    const feed = fieldDef ? this.options.feeds?.[fieldDef.name] : undefined;
    const stream = fieldDef ? this.options.streams?.[fieldDef.name] : undefined;
    if (!fieldDef || field.kind !== 'Field' || (fieldDef.name !== 'overlayBroadcasts' && !feed && !stream)) {
      const fields = ['overlayBroadcasts', ...Object.keys(this.options.feeds ?? {}), ...Object.keys(this.options.streams ?? {})];
      this.sendErrors(connection, id, [new GraphQLError(`Only ${fields.join(', ')} can be subscribed to`)]);
      return;
    }
    const args = getArgumentValues(fieldDef, field, coerced.coerced);
    if (stream) {
      const documentKey = `${payload.operationName ?? ''}\u0000${payload.query}\u0000${JSON.stringify(coerced.coerced)}`;
      this.subscribeStream(connection, id, stream, prepared.document, coerced.coerced, args, documentKey);
      return;
    }
    if (feed) {
      this.subscribeFeed(connection, id, fieldDef.name, feed, prepared.document, coerced.coerced, args);
      return;
    }
    const channelKey = typeof args.channelId === 'string' ? args.channelId : SITE_WIDE;

    // Wait for the site's live broadcasts before registering: events that arrive meanwhile update
    // room.active, so the snapshot below holds them and nothing is missed or sent twice.
    const room = this.roomOf(identity.siteId as string);
    connection.subscribers.set(id, null);
    room.pending += 1;
    try {
      await room.loaded;
    } finally {
      room.pending -= 1;
    }
    if (connection.socket.readyState !== WebSocket.OPEN || connection.subscribers.get(id) !== null) {
      this.dropRoomIfEmpty(room);
      return;
    }
    const groupKey = `${channelKey}\u0000${payload.operationName ?? ''}\u0000${payload.query}\u0000${JSON.stringify(coerced.coerced)}`;
    let channel = room.channels.get(channelKey);
    if (!channel) room.channels.set(channelKey, (channel = new Map()));
    let group = channel.get(groupKey);
    if (!group) {
      group = { key: groupKey, room, channelKey, document: prepared.document, variables: coerced.coerced, subscribers: new Set() };
      channel.set(groupKey, group);
    }
    const subscriber: Subscriber = { connection, framePrefix: framePrefixOf(id), group };
    group.subscribers.add(subscriber);
    connection.subscribers.set(id, subscriber);
    room.size += 1;
    this.countViewer(room.siteId, channelKey, 1);
    if (identity.account && channelKey !== SITE_WIDE) this.options.watchTime?.watch(room.siteId, identity.account.id, channelKey);
    // A late joiner gets what is live now, with the time left.
    for (const event of room.active.values()) {
      if (this.reaches(event, channelKey, connection)) this.sendFrame(subscriber, this.payloadFor(group, withRemaining(event)));
    }
  }

  private subscribeFeed(
    connection: Connection,
    id: string,
    field: string,
    feed: LiveFeed,
    document: DocumentNode,
    variables: Record<string, unknown>,
    args: Record<string, unknown>,
  ): void {
    const identity = connection.identity as Identity;
    try {
      feed.authorize(identity, args);
    } catch (error) {
      this.sendErrors(connection, id, [error instanceof GraphQLError ? error : new GraphQLError('Forbidden')]);
      return;
    }
    // Subscribers of a feed with audiences are filed under their audience too, so a message for one
    // account is one lookup, however many viewers the site has.
    const key = feed.audienceOf ? `${identity.siteId}\u0000${feed.audienceOf(identity)}` : (identity.siteId as string);
    const subscriber: FeedSubscriber = { connection, framePrefix: framePrefixOf(id), field, key, document, variables, args };
    let sites = this.feedSubscribers.get(field);
    if (!sites) this.feedSubscribers.set(field, (sites = new Map()));
    let set = sites.get(key);
    if (!set) sites.set(key, (set = new Set()));
    set.add(subscriber);
    connection.feeds.set(id, subscriber);
    this.feedCount += 1;
  }

  private subscribeStream(
    connection: Connection,
    id: string,
    stream: LiveStream,
    document: DocumentNode,
    variables: Record<string, unknown>,
    args: Record<string, unknown>,
    documentKey: string,
  ): void {
    const target = { connection, framePrefix: framePrefixOf(id) };
    let ended = false;
    const stop = stream.subscribe({
      identity: connection.identity as Identity,
      args,
      documentKey,
      render: (rootValue) => this.execute(document, variables, rootValue),
      send: (payload) => {
        if (!ended) this.sendFrame(target, payload);
      },
      fail: (errors) => {
        if (ended) return;
        ended = true;
        connection.streams.delete(id);
        this.sendErrors(connection, id, errors);
      },
    });
    if (!ended) {
      connection.streams.set(id, () => {
        ended = true;
        stop();
      });
    }
  }

  private removeFeedSubscriber(subscriber: FeedSubscriber): void {
    const sites = this.feedSubscribers.get(subscriber.field);
    const set = sites?.get(subscriber.key);
    if (!set?.delete(subscriber)) return;
    this.feedCount -= 1;
    if (set.size === 0) sites?.delete(subscriber.key);
  }

  private onFeedMessage(field: string, feed: LiveFeed, message: FeedMessage): void {
    const sites = this.feedSubscribers.get(field);
    if (!sites || typeof message?.siteId !== 'string') return;
    const entries = Array.isArray(message.events) ? message.events : [{ audience: message.audience, event: message.event }];
    for (const { audience, event } of entries) {
      const set = sites.get(audience === undefined ? message.siteId : `${message.siteId}\u0000${audience}`);
      if (!set || event === undefined) continue;
      for (const subscriber of set) {
        if (!feed.matches(event, subscriber.args)) continue;
        this.sendFrame(subscriber, this.execute(subscriber.document, subscriber.variables, { [field]: event }));
      }
    }
  }

  private dropRoomIfEmpty(room: Room): void {
    if (room.size > 0 || room.pending > 0 || this.rooms.get(room.siteId) !== room) return;
    for (const timer of room.expiries.values()) clearTimeout(timer);
    this.rooms.delete(room.siteId);
  }

  private removeSubscriber(subscriber: Subscriber): void {
    const { group } = subscriber;
    if (!group.subscribers.delete(subscriber)) return;
    const { room } = group;
    room.size -= 1;
    this.countViewer(room.siteId, group.channelKey, -1);
    const account = subscriber.connection.identity?.account;
    if (account && group.channelKey !== SITE_WIDE) this.options.watchTime?.unwatch(room.siteId, account.id, group.channelKey);
    if (group.subscribers.size === 0) {
      const channel = room.channels.get(group.channelKey);
      channel?.delete(group.key);
      if (channel?.size === 0) room.channels.delete(group.channelKey);
    }
    this.dropRoomIfEmpty(room);
  }

  // ------------------------------------------------------------------ presence (insights)

  private countViewer(siteId: string, channelId: string, change: 1 | -1): void {
    const key = `${siteId}\u0000${channelId}`;
    let entry = this.presence.get(key);
    if (!entry) this.presence.set(key, (entry = { siteId, channelId, concurrents: 0, views: 0, reported: '' }));
    entry.concurrents += change;
    if (change > 0) entry.views += 1;
  }

  /** Publishes the counts that changed, and every live count again so its freshness shows. */
  private reportPresence(): void {
    const entries: PresenceEntry[] = [];
    for (const entry of this.presence.values()) {
      const state = `${entry.concurrents}/${entry.views}`;
      if (entry.concurrents === 0 && state === entry.reported) continue;
      entry.reported = state;
      entries.push({ siteId: entry.siteId, channelId: entry.channelId, concurrents: entry.concurrents, views: entry.views });
    }
    if (entries.length === 0) return;
    const report: PresenceReport = { instanceId: this.instanceId, at: Date.now(), entries };
    this.options.bus.publish(Topics.viewerPresence, report).catch((error: Error) => this.options.logger.warn({ err: error.message }, 'presence report not sent'));
  }

  // ------------------------------------------------------------------ broadcasts

  private roomOf(siteId: string): Room {
    let room = this.rooms.get(siteId);
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

  private remember(room: Room, event: OverlayBroadcastEvent): void {
    const left = event.expiresAt - Date.now();
    if (left <= 0) return;
    room.active.set(event.broadcastId, event);
    const timer = setTimeout(() => {
      room.expiries.delete(event.broadcastId);
      if (room.active.delete(event.broadcastId)) this.fanOut(room, clearEventOf(event));
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

  private onBusMessage(message: OverlayBroadcastMessage, delivery?: BusDelivery): void {
    const room = this.rooms.get(message?.siteId);
    if (!room || !message.event) return;
    const { event } = message;
    if (event.kind === 'SHOW') this.remember(room, event);
    else this.forget(room, event.broadcastId);
    // The delivery is a trace of its own, linked to the call that published the broadcast.
    withLinkedSpan('overlay broadcast fan-out', delivery?.traceparent, { 'stagegraph.broadcast.kind': event.kind }, () => {
      recordFanout(event.kind, delivery?.publishedAt, this.fanOut(room, event));
    });
  }

  /** Whether an event is for viewers of `channelKey` on this connection. */
  private reaches(event: OverlayBroadcastEvent, channelKey: string, connection: Connection): boolean {
    if (event.channelId !== null && event.channelId !== channelKey) return false;
    return inAudience(event, connection.tags);
  }

  /** Sends an event to the viewers it reaches; returns the number of frames sent. */
  private fanOut(room: Room, event: OverlayBroadcastEvent): number {
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
        let payload: Buffer | null = null;
        for (const subscriber of group.subscribers) {
          if (!inAudience(event, subscriber.connection.tags)) continue;
          payload ??= this.payloadFor(group, timed);
          this.sendFrame(subscriber, payload);
          frames += 1;
        }
      }
    }
    return frames;
  }

  /** Executes the group's selection on the event once, and serializes and encodes the result once. */
  private payloadFor(group: Group, event: OverlayBroadcastEvent): Buffer {
    return this.execute(group.document, group.variables, { overlayBroadcasts: event });
  }

  /** A selection executed on an event, as the encoded rest of a `next` frame after its prefix. */
  private execute(document: DocumentNode, variableValues: Record<string, unknown>, rootValue: Record<string, unknown>): Buffer {
    const result = execute({ schema: this.schema(), document, rootValue, variableValues }) as ExecutionResult;
    return Buffer.from(`${JSON.stringify(result)}}`);
  }

  private sendFrame(subscriber: { connection: Connection; framePrefix: Buffer }, payload: Buffer): void {
    const { socket } = subscriber.connection;
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      // A viewer that does not read is dropped rather than buffered without bound.
      recordViewerDropped('slow_reader');
      socket.terminate();
      return;
    }
    // One buffer per viewer (its prefix and the shared payload), sent as one text frame.
    socket.send(Buffer.concat([subscriber.framePrefix, payload], subscriber.framePrefix.length + payload.length), { binary: false });
  }
}

/**
 * Live viewers: the graphql-ws protocol (graphql-transport-ws) on the gateway's /graphql path.
 * @apollo/gateway cannot execute subscriptions, so this server executes `overlayBroadcasts` itself
 * against the supergraph's API schema, fed by the event bus.
 *
 * This file is the socket protocol: connection_init and authentication, ping and keep-alive, message
 * dispatch, and subscribe (validated like /graphql over HTTP). Queries and mutations sent over the socket
 * are executed through the gateway like HTTP ones. Where events go from there: liveGroups.ts (the
 * fan-out groups that execute and serialize an event once for many viewers, and feeds), liveRooms.ts
 * (per site, the live broadcasts late joiners get) and livePresence.ts (viewer counts for insights).
 */
import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
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
import { Topics, type EventBus } from '../shared/bus';
import { recordViewerDropped } from '../shared/metrics';
import type { HeaderBag } from '../shared/auth/authenticate';
import type { Identity } from '../shared/auth/identity';
import { ErrorCode } from '../shared/errors';
import { jsonValueProblem } from '../shared/jsonInput';
import type { Logger } from '../shared/logger';
import { seesSchemaHints, withoutSuggestions, type DocumentLimits } from './documentLimits';
import { type OverlayBroadcastEvent, type OverlayBroadcastMessage } from '../shared/liveEvents';
import { Feeds, SITE_WIDE, fanOut, framePrefixOf, joinGroup, leaveGroup, payloadFor, type Connection, type FeedMessage, type FeedSubscriber, type Subscriber } from './liveGroups';
import { Rooms } from './liveRooms';
import { ViewerPresence } from './livePresence';
import { Streams, type LiveStream } from './liveStreams';

export type { PresenceEntry, PresenceReport } from './livePresence';

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
  /** Subscription fields a module of their own serves (gateway/liveStreams.ts), by field name. */
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

const DOCUMENT_CACHE_LIMIT = 1000;
const CACHED_DOCUMENT_MAX_LENGTH = 16 * 1024;

type Prepared = { document: DocumentNode; operation: OperationDefinitionNode } | { errors: readonly GraphQLError[] };

export class LiveServer {
  private readonly wss: WebSocketServer;
  private readonly documents = new Map<string, Prepared>();
  private readonly connections = new Set<Connection>();
  private readonly presenceTimer: NodeJS.Timeout;
  readonly instanceId = randomUUID();
  private readonly presence: ViewerPresence;
  private readonly rooms: Rooms;
  private readonly feeds = new Feeds(() => this.schema());
  private readonly streams = new Streams(() => this.schema());
  private readonly unsubscribeBus: (() => void)[];
  private readonly keepAlive: NodeJS.Timeout;
  private cachedSchema: GraphQLSchema | null = null;

  constructor(private readonly options: LiveServerOptions) {
    const schema = () => this.schema();
    this.presence = new ViewerPresence(this.instanceId, options.bus, options.logger);
    this.rooms = new Rooms({
      loadActiveBroadcasts: (siteId) => options.loadActiveBroadcasts(siteId),
      logger: options.logger,
      fanOut: (room, event) => fanOut(schema, room, event),
      payloadFor: (group, event) => payloadFor(schema, group, event),
    });
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024, handleProtocols, clientTracking: false });
    this.unsubscribeBus = [
      options.bus.subscribe(Topics.overlayBroadcasts, (message, delivery) => this.rooms.onBusMessage(message as OverlayBroadcastMessage, delivery)),
      ...Object.entries(options.feeds ?? {}).map(([field, feed]) =>
        options.bus.subscribe(feed.topic, (message) => this.feeds.onMessage(field, feed, message as FeedMessage)),
      ),
    ];
    this.keepAlive = setInterval(() => this.sweep(), options.keepAliveMs ?? 30_000);
    this.presenceTimer = setInterval(() => this.presence.report(), options.presenceIntervalMs ?? 5000);
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
    return { connections: this.connections.size, subscriptions: this.rooms.subscriptions() + this.feeds.count + this.streams.count };
  }

  /** Closes every socket with `code` (1001 going away; a drain's 1012 service restart) so clients reconnect elsewhere. */
  async close(code = 1001): Promise<void> {
    for (const unsubscribe of this.unsubscribeBus) unsubscribe();
    for (const stream of Object.values(this.options.streams ?? {})) stream.close?.();
    clearInterval(this.keepAlive);
    clearInterval(this.presenceTimer);
    for (const connection of this.connections) connection.socket.close(code, 'Server shutting down');
    this.rooms.close();
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
      for (const subscriber of connection.feeds.values()) this.feeds.remove(subscriber);
      connection.feeds.clear();
      this.streams.stopAll(connection);
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
        if (feedSubscriber) this.feeds.remove(feedSubscriber);
        this.streams.stop(connection, message.id);
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
    // A new schema empties the document cache.
    this.schema();
    try {
      const limited = this.options.limits.parse(query);
      if ('errors' in limited) prepared = limited;
      else {
        const { document } = limited;
        const errors = this.options.limits.validate(document);
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
      const request = { document: prepared.document, variables: coerced.coerced, args, documentKey };
      this.streams.start(connection, id, stream, request, (errors) => this.sendErrors(connection, id, errors));
      return;
    }
    if (feed) {
      this.subscribeFeed(connection, id, fieldDef.name, feed, prepared.document, coerced.coerced, args);
      return;
    }
    const channelKey = typeof args.channelId === 'string' ? args.channelId : SITE_WIDE;

    // Wait for the site's live broadcasts before registering: events that arrive meanwhile update
    // room.active, so the snapshot below holds them and nothing is missed or sent twice.
    const room = this.rooms.of(identity.siteId as string);
    connection.subscribers.set(id, null);
    room.pending += 1;
    try {
      await room.loaded;
    } finally {
      room.pending -= 1;
    }
    if (connection.socket.readyState !== WebSocket.OPEN || connection.subscribers.get(id) !== null) {
      this.rooms.dropIfEmpty(room);
      return;
    }
    const groupKey = `${channelKey}\u0000${payload.operationName ?? ''}\u0000${payload.query}\u0000${JSON.stringify(coerced.coerced)}`;
    const subscriber = joinGroup(room, channelKey, groupKey, prepared.document, coerced.coerced, connection, framePrefixOf(id));
    connection.subscribers.set(id, subscriber);
    room.size += 1;
    this.presence.count(room.siteId, channelKey, 1);
    if (identity.account && channelKey !== SITE_WIDE) this.options.watchTime?.watch(room.siteId, identity.account.id, channelKey);
    this.rooms.catchUp(room, subscriber);
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
    const subscriber: FeedSubscriber = { connection, framePrefix: framePrefixOf(id), field, key: Feeds.keyOf(feed, identity), document, variables, args };
    this.feeds.add(subscriber);
    connection.feeds.set(id, subscriber);
  }

  private removeSubscriber(subscriber: Subscriber): void {
    if (!leaveGroup(subscriber)) return;
    const { group } = subscriber;
    const { room } = group;
    room.size -= 1;
    this.presence.count(room.siteId, group.channelKey, -1);
    const account = subscriber.connection.identity?.account;
    if (account && group.channelKey !== SITE_WIDE) this.options.watchTime?.unwatch(room.siteId, account.id, group.channelKey);
    this.rooms.dropIfEmpty(room);
  }
}

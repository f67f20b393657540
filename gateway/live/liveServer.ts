/**
 * Live viewers: @apollo/gateway cannot execute subscriptions, so this server executes them itself
 * against the supergraph's API schema, fed by the event bus, for viewers on every transport.
 *
 * This file is the transport-neutral core: a transport (gateway/live/transports/: the graphql-ws socket,
 * Server-Sent Events, multipart HTTP) opens a viewer connection with `connect` on a ViewerChannel of
 * its own (gateway/live/viewerChannel.ts), then `subscribe`s, `complete`s and `disconnect`s; each subscribe
 * is validated like /graphql over HTTP. Queries and mutations are executed through the gateway like HTTP
 * ones. Where events go from there: liveGroups.ts (the fan-out groups that execute and serialize an
 * event once for many viewers, and feeds), liveRooms.ts (per site, the live broadcasts late joiners get)
 * and livePresence.ts (viewer counts for insights).
 */
import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { randomUUID } from 'node:crypto';
import { Topics, type EventBus } from '../../shared/bus';
import type { HeaderBag } from '../../shared/auth/authenticate';
import { onDeveloperKeyRevoked } from '../../shared/auth/keyRevocations';
import type { Identity } from '../../shared/auth/identity';
import { ErrorCode, unauthenticated } from '../../shared/errors';
import { jsonValueProblem } from '../../shared/jsonInput';
import type { Logger } from '../../shared/logger';
import { seesSchemaHints, withoutSuggestions, type DocumentLimits } from '../documentLimits';
import { type OverlayBroadcastEvent, type OverlayBroadcastMessage } from '../../shared/contracts/liveEvents';
import {
  Feeds,
  SITE_WIDE,
  deviceIdOf,
  fanOut,
  joinGroup,
  leaveGroup,
  payloadFor,
  type Connection,
  type FeedMessage,
  type FeedSubscriber,
  type LiveFeed,
  type Subscriber,
} from './groups';
import { Rooms } from './rooms';
import { ViewerPresence } from './presence';
import { Streams, type LiveStream } from './streams';
import type { ChannelCheck } from './channels';
import type { FastReactions } from './fastReactions';
import { CLOSE_GOING_AWAY, CLOSE_UNAUTHORIZED, TRANSPORTS, type Transport, type ViewerChannel } from './viewerChannel';

export type { PresenceEntry, PresenceReport } from './presence';
export type { LiveFeed } from './groups';

/** Told when a signed-in account's overlayBroadcasts subscription to a channel starts and stops (quests' watch time, gateway/live/watchTime.ts). */
export interface WatchTimeHooks {
  watch(siteId: string, accountId: string, channelId: string): void;
  unwatch(siteId: string, accountId: string, channelId: string): void;
}

export interface LiveServerOptions {
  /** The supergraph's API schema: what subscriptions are validated and executed against. */
  schema(): GraphQLSchema;
  /** The gateway's document limits, met before a subscription's document is validated. */
  limits: DocumentLimits;
  /**
   * Live subscriptions one connection may hold at once (default 10). One more is answered with an
   * error for its id (code RATE_LIMITED): the connection and its other subscriptions stay, and a
   * graphql-ws client sees the error on that subscription's sink, without reconnecting.
   */
  maxSubscriptionsPerSocket?: number;
  /** Turns a transport's credentials (as headers) into an identity; throws when a credential is wrong. */
  authenticate(headers: HeaderBag): Promise<Identity>;
  /** Executes a query or mutation through the gateway. */
  executeOperation(
    request: { query: string; variables?: Record<string, unknown>; operationName?: string | null },
    identity: Identity,
  ): Promise<ExecutionResult>;
  /** Broadcasts of a site that are live now (what late joiners get). */
  loadActiveBroadcasts(siteId: string): Promise<OverlayBroadcastEvent[]>;
  /** Tags of the signed-in viewer's account (for tag-targeted broadcasts). */
  loadViewerTags(identity: Identity): Promise<string[]>;
  bus: EventBus;
  logger: Logger;
  /** Subscription fields besides overlayBroadcasts, by field name. */
  feeds?: Record<string, LiveFeed>;
  /** Subscription fields a module of their own serves (gateway/live/streams.ts), by field name. */
  streams?: Record<string, LiveStream>;
  /** Milliseconds between viewer-presence reports on the bus, for insights (default 5000). */
  presenceIntervalMs?: number;
  /** Whether a channel is one of the site's (gateway/live/channels.ts); an overlayBroadcasts subscription to one that is not is refused. */
  checkChannel?: ChannelCheck;
  /** Counts signed-in viewers' watch time for quests; O(1) per subscription start and stop. */
  watchTime?: WatchTimeHooks;
  /** Answers a viewer's reaction without the executor when it can answer it exactly (gateway/live/fastReactions.ts). */
  fastReactions?: FastReactions;
}

const DOCUMENT_CACHE_LIMIT = 1000;
const CACHED_DOCUMENT_MAX_LENGTH = 16 * 1024;

/** A GraphQL request as a transport received it. */
export interface OperationRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

type Prepared = { document: DocumentNode; operation: OperationDefinitionNode } | { errors: readonly GraphQLError[] };

export class LiveServer {
  private readonly documents = new Map<string, Prepared>();
  private readonly connections = new Set<Connection>();
  private readonly presenceTimer: NodeJS.Timeout;
  readonly instanceId = randomUUID();
  private readonly presence: ViewerPresence;
  private readonly rooms: Rooms;
  private readonly feeds = new Feeds(() => this.schema());
  private readonly streams = new Streams(() => this.schema());
  private readonly unsubscribeBus: (() => void)[];
  private readonly closeHooks: ((code: number) => void)[] = [];
  private cachedSchema: GraphQLSchema | null = null;
  private closed = false;
  /**
   * Keys revoked while this server ran (IDs, bounded): a connection whose credentials were checked just
   * before the revocation arrived, and that is still being opened, is refused instead of outliving it.
   */
  private readonly revokedKeys = new Set<string>();

  constructor(private readonly options: LiveServerOptions) {
    const schema = () => this.schema();
    this.presence = new ViewerPresence(this.instanceId, options.bus, options.logger);
    this.rooms = new Rooms({
      loadActiveBroadcasts: (siteId) => options.loadActiveBroadcasts(siteId),
      logger: options.logger,
      fanOut: (room, event) => fanOut(schema, room, event),
      payloadFor: (group, event) => payloadFor(schema, group, event),
    });
    this.unsubscribeBus = [
      options.bus.subscribe(Topics.overlayBroadcasts, (message, delivery) => this.rooms.onBusMessage(message as OverlayBroadcastMessage, delivery)),
      ...Object.entries(options.feeds ?? {}).map(([field, feed]) =>
        options.bus.subscribe(feed.topic, (message) => this.feeds.onMessage(field, feed, message as FeedMessage)),
      ),
      // A connection opened with a key that is revoked ends (4401), whatever it subscribed to: its
      // subscriptions were authorized once, at subscribe, by a credential that no longer holds.
      onDeveloperKeyRevoked(options.bus, ({ keyId }) => this.endConnectionsOfKey(keyId)),
    ];
    this.presenceTimer = setInterval(() => this.presence.report(), options.presenceIntervalMs ?? 5000);
    this.presenceTimer.unref();
  }

  /** Open viewer connections (all transports, and by transport) and subscriptions (for insights, metrics and tests). */
  stats(): { connections: number; subscriptions: number; byTransport: Record<Transport, number>; fastReactions: number } {
    const byTransport = Object.fromEntries(TRANSPORTS.map((transport) => [transport, 0])) as Record<Transport, number>;
    for (const connection of this.connections) byTransport[connection.channel.transport] += 1;
    const fastReactions = this.options.fastReactions?.answered ?? 0;
    return {
      connections: this.connections.size,
      subscriptions: this.rooms.subscriptions() + this.feeds.count + this.streams.count,
      byTransport,
      fastReactions,
    };
  }

  /** Runs `hook` when the server closes (a transport's timers). */
  onClose(hook: (code: number) => void): void {
    this.closeHooks.push(hook);
  }

  /** Ends every connection with `code` (1001 going away; a drain's 1012 service restart) so clients reconnect elsewhere. */
  async close(code = CLOSE_GOING_AWAY): Promise<void> {
    this.closed = true;
    for (const unsubscribe of this.unsubscribeBus) unsubscribe();
    for (const stream of Object.values(this.options.streams ?? {})) stream.close?.();
    clearInterval(this.presenceTimer);
    for (const hook of this.closeHooks.splice(0)) hook(code);
    for (const connection of [...this.connections]) connection.channel.close(code);
    this.rooms.close();
  }

  /** Ends every connection opened with developer key `keyId` (rare: one pass over the connections). */
  private endConnectionsOfKey(keyId: string): void {
    if (this.revokedKeys.size >= 10_000) this.revokedKeys.delete(this.revokedKeys.values().next().value as string);
    this.revokedKeys.add(keyId);
    for (const connection of [...this.connections]) {
      if (connection.identity.developerKeyId !== keyId) continue;
      this.disconnect(connection);
      connection.channel.close(CLOSE_UNAUTHORIZED);
    }
  }

  private schema(): GraphQLSchema {
    const schema = this.options.schema();
    if (schema !== this.cachedSchema) {
      this.cachedSchema = schema;
      this.documents.clear();
    }
    return schema;
  }

  // ------------------------------------------------------------------ connections (the transports' seam)

  /**
   * Opens a viewer connection on `channel` for the caller its credentials (as headers) name: the
   * socket's connectionParams, or an HTTP stream's own headers. Throws a GraphQLError (UNAUTHENTICATED,
   * FORBIDDEN) when a credential is wrong or the site ID is missing; null when the channel closed meanwhile.
   */
  async connect(channel: ViewerChannel, headers: HeaderBag): Promise<Connection | null> {
    const identity = await this.options.authenticate(headers);
    if (!identity.siteId) throw unauthenticated('x-service-client-id is required (connectionParams on a socket, a header over HTTP)');
    const tags = identity.account ? new Set(await this.options.loadViewerTags(identity)) : null;
    if (!channel.open || this.closed) return null;
    if (identity.developerKeyId && this.revokedKeys.has(identity.developerKeyId)) throw unauthenticated('invalid developer key for this site');
    const connection: Connection = { channel, identity, deviceId: deviceIdOf(headers), tags, subscribers: new Map(), feeds: new Map(), streams: new Map() };
    this.connections.add(connection);
    return connection;
  }

  /** Whether operation `id` runs (or is starting) on the connection. */
  has(connection: Connection, id: string): boolean {
    return connection.subscribers.has(id) || connection.feeds.has(id) || connection.streams.has(id);
  }

  /** Stops one operation (the client completed it). */
  complete(connection: Connection, id: string): void {
    const subscriber = connection.subscribers.get(id);
    connection.subscribers.delete(id);
    if (subscriber) this.removeSubscriber(subscriber);
    const feedSubscriber = connection.feeds.get(id);
    connection.feeds.delete(id);
    if (feedSubscriber) this.feeds.remove(feedSubscriber);
    this.streams.stop(connection, id);
  }

  /** Frees everything of a connection that ended (the client went, or the server closed it). */
  disconnect(connection: Connection): void {
    if (!this.connections.delete(connection)) return;
    for (const subscriber of connection.subscribers.values()) if (subscriber) this.removeSubscriber(subscriber);
    connection.subscribers.clear();
    for (const subscriber of connection.feeds.values()) this.feeds.remove(subscriber);
    connection.feeds.clear();
    this.streams.stopAll(connection);
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
    connection.channel.errors(id, payload);
  }

  /**
   * Starts operation `id` of a connection: a subscription joins its group (or feed, or stream) and gets
   * the live state at once; a query or mutation is answered once. Errors go to the channel for `id`.
   */
  async subscribe(connection: Connection, id: string, payload: OperationRequest): Promise<void> {
    const { identity } = connection;
    const askedAt = Date.now();
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
    if (prepared.operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      if (await this.options.fastReactions?.answer(connection, id, prepared.operation, payload.variables ?? {})) return;
      const result = await this.options.executeOperation(
        { query: payload.query, variables: payload.variables ?? undefined, operationName: payload.operationName },
        identity,
      );
      if (connection.channel.open) connection.channel.result(id, result);
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
    const fieldDef = field?.kind === Kind.FIELD ? subscriptionType?.getFields()[field.name.value] : undefined;
    const feed = fieldDef ? this.options.feeds?.[fieldDef.name] : undefined;
    const stream = fieldDef ? this.options.streams?.[fieldDef.name] : undefined;
    if (!fieldDef || field.kind !== Kind.FIELD || (fieldDef.name !== 'overlayBroadcasts' && !feed && !stream)) {
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
    let refused: GraphQLError | null = null;
    try {
      const check = channelKey === SITE_WIDE ? null : this.options.checkChannel?.(room.siteId, channelKey);
      [refused] = await Promise.all([check ?? null, room.loaded]);
    } finally {
      room.pending -= 1;
    }
    const waiting = connection.channel.open && connection.subscribers.get(id) === null;
    if (!waiting || refused) {
      if (waiting && refused) {
        connection.subscribers.delete(id);
        this.sendErrors(connection, id, [refused]);
      }
      this.rooms.dropIfEmpty(room);
      return;
    }
    const groupKey = `${channelKey}\u0000${payload.operationName ?? ''}\u0000${payload.query}\u0000${JSON.stringify(coerced.coerced)}`;
    const subscriber = joinGroup(room, channelKey, groupKey, prepared.document, coerced.coerced, connection, connection.channel.framePrefix(id));
    connection.subscribers.set(id, subscriber);
    room.size += 1;
    this.presence.count(room.siteId, channelKey, 1);
    if (identity.account && channelKey !== SITE_WIDE) this.options.watchTime?.watch(room.siteId, identity.account.id, channelKey);
    this.rooms.catchUp(room, subscriber, askedAt);
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
    const { identity } = connection;
    try {
      feed.authorize(identity, args);
    } catch (error) {
      this.sendErrors(connection, id, [error instanceof GraphQLError ? error : new GraphQLError('Forbidden')]);
      return;
    }
    const subscriber: FeedSubscriber = {
      connection,
      framePrefix: connection.channel.framePrefix(id),
      field,
      key: Feeds.keyOf(feed, identity),
      document,
      variables,
      args,
    };
    this.feeds.add(subscriber);
    connection.feeds.set(id, subscriber);
  }

  private removeSubscriber(subscriber: Subscriber): void {
    if (!leaveGroup(subscriber)) return;
    const { group } = subscriber;
    const { room } = group;
    room.size -= 1;
    this.presence.count(room.siteId, group.channelKey, -1);
    const { account } = subscriber.connection.identity;
    if (account && group.channelKey !== SITE_WIDE) this.options.watchTime?.unwatch(room.siteId, account.id, group.channelKey);
    this.rooms.dropIfEmpty(room);
  }
}

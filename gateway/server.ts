/**
 * The gateway, built and not listening: @apollo/gateway serving the supergraph composed from the four
 * subgraph SDLs, on @apollo/server with the express 5 integration, plus the graphql-ws endpoint for
 * live viewers. It authenticates the caller once and hands subgraphs a signed identity.
 */
import { ApolloGateway, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import type { RunningService } from '../shared/subgraph';
import { ApolloServer, type ApolloServerPlugin, type GraphQLRequest } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { graphqlMiddleware } from '../shared/graphqlMiddleware';
import { nextTurn } from '../shared/turns';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { RequestHandler } from 'express';
import type { Server } from 'node:http';
import type { Authenticator } from '../shared/auth/authenticate';
import { IDENTITY_HEADER, signIdentity, type Identity } from '../shared/auth/identity';
import type { QuickAnswers } from '../shared/quickAnswers';
import type { EventBus } from '../shared/bus';
import type { Config, SubgraphName } from '../shared/config';
import { withHttpStatus } from '../shared/errors';
import { newId } from '../shared/ids';
import type { Logger } from '../shared/logger';
import { graphqlMetricsPlugin, measuredDataSource, measuredSubgraphOperation, registerOperationNames } from '../shared/metrics';
import { injectTraceHeaders } from '../shared/tracing';
import { type OverlayBroadcastEvent } from '../shared/contracts/liveEvents';
import { streamStateFeed } from '../shared/contracts/liveEvents';
import { questProgressFeed } from '../shared/contracts/viewerActivity';
import type { WatchedMinute } from '../shared/contracts/viewerActivity';
import { composeSupergraphSdl } from './compose';
import type { GatewayContext } from './context';
import { DocumentLimits, introspectionRefused, seesSchemaHints, usesIntrospection, VALIDATION_OPTIONS, withoutSuggestions } from './documentLimits';
import { LiveServer } from './live/liveServer';
import { multipartTransport } from './live/transports/multipart';
import { sseTransport } from './live/transports/sse';
import { SocketTransport } from './live/transports/websocket';
import { WatchTimeTracker } from './live/watchTime';
import { SingleSubgraphPlanner } from './singleSubgraph';
import { PollResultsFeed, pollResultsSource, POLL_RESULTS_OPERATIONS } from './live/feeds/pollResults';
import { QaRoomFeed, qaRoomSource, QA_ROOM_OPERATIONS } from './live/feeds/qaRoom';
import { CHANNEL_STATUS_OPERATIONS, ChannelStatusFeed, channelStatusSource, viewerPlaybackOf } from './live/feeds/channelStatus';
import { LIVE_CHANNEL_OPERATIONS, liveChannelCheck } from './live/channels';
import { ChatFeed } from './live/feeds/chat';
import { CHAT_OPERATIONS, chatSource } from './live/feeds/chatSource';
import { CHAT_MODERATION_OPERATIONS, ChatModerationFeed } from './live/feeds/chatModeration';
import { ChatRoomCounts } from './live/feeds/chatReactions';
import { FastReactions } from './live/fastReactions';
import { holdChatReactions } from '../shared/chatReactions';
import { authenticatedIdentity, trustedDocuments, type TrustedDocumentStore } from './trustedDocuments';
import { distinctEntities } from './distinctEntities';
import { formatGatewayError, httpSubgraph } from './federation';
import { withLocalQueries } from './localQueries';
import { shapeResponsesFaster } from './responseShaping';

export interface GatewayOptions {
  config: Config;
  logger: Logger;
  authenticator: Authenticator;
  bus: EventBus;
  /** Where each subgraph answers. */
  subgraphUrl: (name: SubgraphName) => string;
  /**
   * Subgraphs running in this process, looked up per request (a restarted one is picked up): the
   * gateway executes their part of a plan in-process instead of over HTTP.
   */
  localSubgraph?: (name: SubgraphName) => RunningService | undefined;
  /** Writes a batch of signed-in viewers' watch time (quests); unset = watch time is not counted. */
  recordWatchTime?: (batch: WatchedMinute[]) => Promise<unknown>;
  /** Sites' trusted documents: operations sent by id, and sites that run nothing else (gateway/trustedDocuments.ts). */
  trustedDocuments: TrustedDocumentStore;
  /** The quick answers of the subgraphs in this process: a gated go-live's pushes carry each entitled viewer's URL from them. */
  quickAnswers?: QuickAnswers;
}

/** Executes a subgraph's part of a query plan in this process (see RunningService.execute). */
class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  constructor(private readonly subgraph: () => RunningService) {}

  async process({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    // Each fetch of a plan is a slice of synchronous work of its own, before any request that starts (shared/turns.ts).
    await nextTurn('continuing');
    const result = await this.subgraph().execute(
      { query: request.query, variables: request.variables, operationName: request.operationName },
      (context as GatewayContext).identity,
    );
    return result;
  }
}

export interface Gateway {
  /** Express handler for POST/GET /graphql (multipart HTTP subscriptions included). */
  middleware: RequestHandler;
  /** Express handler for /graphql/stream: subscriptions over Server-Sent Events (graphql-sse). */
  streamMiddleware: RequestHandler;
  /** Takes over the graphql-ws upgrades of /graphql on the HTTP server. */
  attach(server: Server): void;
  /** Runs an operation in-process, as the REST bridge and live viewers do. */
  execute(request: GraphQLRequest, identity: Identity): Promise<ExecutionResult>;
  live: LiveServer;
  /** Signed-in viewers' watch time being counted (null when not counted). */
  watchTime: WatchTimeTracker | null;
  stop(): Promise<void>;
}

/**
 * For callers without D or J (no credential, or the site ID alone): no introspection, and "Did you mean
 * …?" cut from errors. Admins keep both. Queries sent on the graphql-ws socket run through here too.
 */
const schemaHintsPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart({ contextValue }) {
    if (seesSchemaHints(contextValue.identity)) return;
    return {
      async didResolveOperation({ document }) {
        if (usesIntrospection(document)) throw introspectionRefused();
      },
      async didEncounterErrors({ errors }) {
        for (const error of errors) error.message = withoutSuggestions(error.message);
      },
    };
  },
};

/** The `query` strings of an HTTP GraphQL request (a batch holds several). */
function queriesOf(req: Parameters<RequestHandler>[0]): string[] {
  const body = req.body as unknown;
  const bodies = Array.isArray(body) ? body : [body];
  const queries = bodies.map((item) => (item as { query?: unknown } | null)?.query);
  if (req.method === 'GET') queries.push(req.query.query);
  return queries.filter((query): query is string => typeof query === 'string');
}

/** A signature is reused within a request for this long: well inside the signed identity's lifetime (60 s). */
const SIGNATURE_REUSE_MS = 20_000;

/** The request's identity header, signed at its first subgraph fetch and reused by the others. */
function signedOnce(context: GatewayContext, secret: string): string {
  const now = Date.now();
  const kept = context.signedIdentity;
  if (kept && now - kept.signedAt < SIGNATURE_REUSE_MS) return kept.header;
  const header = signIdentity(context.identity, secret);
  context.signedIdentity = { header, signedAt: now };
  return header;
}

const ACTIVE_BROADCASTS = /* GraphQL */ `
  query LiveActiveBroadcasts {
    activeOverlayBroadcasts {
      kind broadcastId channelId tagId tags variables startedAt expiresAt remainingSeconds
      overlay { id name type contents cta { type data } duration }
    }
  }
`;
const VIEWER_TAGS = /* GraphQL */ `query LiveViewerTags { me { tags } }`;
registerOperationNames([
  ACTIVE_BROADCASTS,
  VIEWER_TAGS,
  ...POLL_RESULTS_OPERATIONS,
  ...QA_ROOM_OPERATIONS,
  ...CHAT_OPERATIONS,
  ...CHAT_MODERATION_OPERATIONS,
  ...CHANNEL_STATUS_OPERATIONS,
  ...LIVE_CHANNEL_OPERATIONS,
]);

// Unless told not to, @apollo/gateway probes cloud metadata endpoints (169.254.169.254) when built and
// sends usage metrics to Apollo every hour. This service sends telemetry only where its operator says
// (OTEL_EXPORTER_OTLP_ENDPOINT), so that is turned off; the variable is @apollo/gateway's only switch.
process.env.APOLLO_TELEMETRY_DISABLED = 'true';

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, logger, authenticator } = options;
  // Every planned operation's answer is shaped from a kept operation, into plain objects (gateway/responseShaping.ts),
  // on the dependency versions that was proven on; the stock path otherwise, and the log says why.
  const shaping = shapeResponsesFaster({ stock: config.gatewayStock });
  if (!shaping.replaced) logger.warn({ reason: shaping.reason }, "the gateway runs @apollo/gateway's stock response shaping");
  const supergraphSdl = composeSupergraphSdl(options.subgraphUrl);
  const singleSubgraph = new SingleSubgraphPlanner(supergraphSdl);
  const gateway = new ApolloGateway({
    supergraphSdl,
    // The supergraph is @apollo/composition's output (gateway/compose.ts: composed and validated when a subgraph's
    // SDL changed, kept under its hash otherwise); @apollo/gateway would validate it again at each start outside
    // production (~0.35 s of CPU per start, what every test stack paid), as it already does not in production.
    validateSupergraph: false,
    logger,
    buildService: ({ name, url }) => {
      const local = options.localSubgraph;
      if (local && local(name as SubgraphName))
        return measuredDataSource(name, 'in_process', distinctEntities(new InProcessDataSource(() => local(name as SubgraphName) as RunningService)));
      return httpSubgraph<GatewayContext>(
        name,
        url as string,
        logger,
        (context) => {
          const headers: Record<string, string> = {};
          if (context?.identity) headers[IDENTITY_HEADER] = signedOnce(context, config.internalSecret);
          // The subgraph's spans and log lines join this request's trace.
          injectTraceHeaders((header, value) => (headers[header] = value));
          return headers;
        },
        config.gatewayStock,
      );
    },
  });

  let apiSchema: GraphQLSchema | null = null;
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => {
    apiSchema = schema;
  });

  const apollo = new ApolloServer<GatewayContext>({
    gateway: options.localSubgraph ? withLocalQueries(gateway, { planner: singleSubgraph, localSubgraph: options.localSubgraph }) : gateway,
    includeStacktraceInErrorResponses: false,
    // Signals are handled once, by the process that runs the services.
    stopOnTerminationSignals: false,
    formatError: formatGatewayError(logger),
    // Per caller, in schemaHintsPlugin.
    introspection: true,
    validationOptions: VALIDATION_OPTIONS,
    logger,
    // No IDE page at GET /graphql (Apollo's landing page embeds Sandbox outside production).
    plugins: [graphqlMetricsPlugin(), schemaHintsPlugin, ApolloServerPluginLandingPageDisabled()],
  });
  await apollo.start();

  const limits = new DocumentLimits(config.graphqlLimits, () => {
    if (!apiSchema) throw new Error('supergraph not loaded');
    return apiSchema;
  });

  const execute = async (request: GraphQLRequest, identity: Identity): Promise<ExecutionResult> => {
    const refused = typeof request.query === 'string' ? limits.check(request.query) : null;
    if (refused) return { errors: [refused] };
    const response = await apollo.executeOperation(request, { contextValue: { identity } });
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not supported');
    return response.body.singleResult as ExecutionResult;
  };

  const watchTime = options.recordWatchTime
    ? new WatchTimeTracker({ flushMs: config.watchFlushMs, write: options.recordWatchTime, logger: logger.child({ component: 'watch-time' }) })
    : null;
  const channels = liveChannelCheck(execute, options.bus, logger.child({ component: 'live-channels' }));
  const chatFeed = new ChatFeed(chatSource(execute), options.bus, logger.child({ component: 'chat' }), config.chatBatchMs);
  // Reactions and viewer counts of the rooms, summed across instances, ride on the chat feed's events.
  const chatCounts = new ChatRoomCounts(chatFeed, options.bus, logger.child({ component: 'chat-counts' }), { occupancyMs: config.chatOccupancyMs });
  // The instance's reaction counter and limit, the content subgraph's own (shared/chatReactions.ts).
  const reactions = holdChatReactions({ config, bus: options.bus, logger });
  const live = new LiveServer({
    fastReactions: new FastReactions(reactions.reactions, chatFeed, () => {
      if (!apiSchema) throw new Error('supergraph not loaded');
      return apiSchema;
    }),
    schema: () => {
      if (!apiSchema) throw new Error('supergraph not loaded');
      return apiSchema;
    },
    limits,
    maxSubscriptionsPerSocket: config.liveMaxSubscriptionsPerSocket,
    authenticate: (headers) => authenticator.authenticate(headers),
    executeOperation: (request, identity) => {
      // A viewer's operation that one subgraph running here answers whole (the embed's answerPoll) skips the planner.
      const name = options.localSubgraph ? (singleSubgraph.subgraphOf(request.query, request.operationName) as SubgraphName | null) : null;
      const local = name ? options.localSubgraph?.(name) : undefined;
      const operation = { ...request, operationName: request.operationName ?? undefined };
      return local && name ? measuredSubgraphOperation(name, operation.operationName, () => local.execute(operation, identity)) : execute(operation, identity);
    },
    loadActiveBroadcasts: async (siteId) => {
      const result = await execute({ query: ACTIVE_BROADCASTS }, authenticator.serviceIdentity(siteId));
      if (result.errors?.length) throw new Error(result.errors[0].message);
      return (result.data as { activeOverlayBroadcasts: OverlayBroadcastEvent[] }).activeOverlayBroadcasts;
    },
    loadViewerTags: async (identity) => {
      const result = await execute({ query: VIEWER_TAGS }, identity);
      return (result.data as { me: { tags: string[] } | null } | null)?.me?.tags ?? [];
    },
    bus: options.bus,
    checkChannel: channels.check,
    feeds: { streamStateChanged: streamStateFeed, questProgress: questProgressFeed },
    watchTime: watchTime ?? undefined,
    streams: {
      pollResults: new PollResultsFeed(pollResultsSource(execute, authenticator), options.bus, logger.child({ component: 'poll-results' })),
      chatMessages: chatFeed,
      qaRoom: new QaRoomFeed(qaRoomSource(execute), options.bus, logger.child({ component: 'qa-room' })),
      chatModeration: new ChatModerationFeed(execute, options.bus, logger.child({ component: 'chat-moderation' })),
      channelStatus: new ChannelStatusFeed(
        channelStatusSource(execute),
        options.bus,
        logger.child({ component: 'channel-status' }),
        options.quickAnswers ? viewerPlaybackOf(options.quickAnswers) : null,
      ),
    },
    logger: logger.child({ component: 'live' }),
    presenceIntervalMs: config.presenceIntervalMs,
  });

  const apolloMiddleware = graphqlMiddleware(apollo, {
    context: async ({ req, res }) => {
      try {
        return { identity: authenticatedIdentity(res.locals) ?? (await authenticator.authenticate(req.headers, (req as { id?: string }).id ?? newId())) };
      } catch (error) {
        throw error instanceof GraphQLError ? withHttpStatus(error) : error;
      }
    },
  });

  // The limits run before Apollo Server parses and validates: a refused document never reaches them.
  const withinLimits: RequestHandler = (req, res, next) => {
    for (const query of queriesOf(req)) {
      const refused = limits.check(query);
      if (refused) {
        res.status(400).json({ errors: [{ message: refused.message, extensions: { code: refused.extensions.code } }] });
        return;
      }
    }
    // Subscriptions are served (or refused) there; everything else goes on to Apollo Server.
    return subscriptions(req, res, (error?: unknown) => (error ? next(error) : apolloMiddleware(req, res, next)));
  };
  // Operations sent by id get their body first, so the limits and Apollo Server see the document.
  const trusted = trustedDocuments(options.trustedDocuments, authenticator);
  const middleware: RequestHandler = (req, res, next) => trusted(req, res, (error?: unknown) => (error ? next(error) : withinLimits(req, res, next)));
  const sockets = new SocketTransport(live, { path: '/graphql', logger: logger.child({ component: 'live' }) });
  const subscriptions = multipartTransport({
    live,
    logger,
    heartbeatMs: config.multipartHeartbeatMs,
    parse: (query) => {
      const parsed = limits.parse(query);
      return 'document' in parsed ? parsed.document : null;
    },
  });

  return {
    middleware,
    streamMiddleware: sseTransport({ live, logger, heartbeatMs: config.sseHeartbeatMs }),
    attach: (server) => sockets.attach(server),
    execute,
    live,
    watchTime,
    async stop() {
      chatCounts.close();
      await live.close();
      await reactions.release();
      channels.stop();
      await watchTime?.close();
      options.trustedDocuments.stop();
      await apollo.stop();
    },
  };
}

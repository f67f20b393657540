/**
 * Prometheus metrics (prom-client): every family the service exports is defined here, with its help
 * text, and recorded through the small functions below so call sites stay one line.
 *
 * Label values come from fixed vocabularies only (route templates, subgraph and topic names, reasons,
 * outcomes, status codes, a bounded set of operation names), never from IDs a client sends, so the
 * number of series stays bounded whatever arrives. Process-wide families live in one registry here; what
 * belongs to one instance's public port (its live viewers, bus, drain) in a registry per instance
 * (shared/instanceMetrics.ts), so two instances in one process (tests) each report their own.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { ExecutionResult } from 'graphql';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
// Read at call time only: the bus records its deliveries here, so this import is circular.
import { Topics } from './bus/topics';
import { ErrorCode, restErrorBody } from './errors';

/** False only for the bench's baseline (METRICS=off): recording does nothing and /metrics is 404. */
let enabled = true;

/** Families shared by everything in this process. */
export const processRegistry = new Registry();
let defaultsCollected = false;

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpRequests = new Counter({
  name: 'stagegraph_http_requests_total',
  help: 'HTTP requests answered on the public port, by route template (unmatched = no route), method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [processRegistry],
});
const httpDuration = new Histogram({
  name: 'stagegraph_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});
const graphqlOperations = new Counter({
  name: 'stagegraph_graphql_operations_total',
  help: 'GraphQL operations run by the gateway (HTTP, REST bridge, live sockets), by operation name and outcome (ok or error).',
  labelNames: ['operation', 'outcome'] as const,
  registers: [processRegistry],
});
const graphqlDuration = new Histogram({
  name: 'stagegraph_graphql_operation_duration_seconds',
  help: 'Time the gateway spent on a GraphQL operation (parse, plan, subgraph fetches), by operation name.',
  labelNames: ['operation'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});
const graphqlErrors = new Counter({
  name: 'stagegraph_graphql_errors_total',
  help: 'Errors in GraphQL answers, by operation name and error code.',
  labelNames: ['operation', 'code'] as const,
  registers: [processRegistry],
});
const subgraphFetches = new Counter({
  name: 'stagegraph_subgraph_fetches_total',
  help: 'Fetches of a query plan sent to a subgraph, by subgraph, transport (in_process or http) and outcome (ok or error).',
  labelNames: ['subgraph', 'transport', 'outcome'] as const,
  registers: [processRegistry],
});
const subgraphDuration = new Histogram({
  name: 'stagegraph_subgraph_fetch_duration_seconds',
  help: 'Time a subgraph took to answer one fetch of a query plan, by subgraph and transport.',
  labelNames: ['subgraph', 'transport'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});
const fanoutLatency = new Histogram({
  name: 'stagegraph_broadcast_fanout_seconds',
  help: 'Time from an overlay broadcast event being published to its frames being handed to every live viewer of this instance.',
  labelNames: ['kind'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});
const broadcastFrames = new Counter({
  name: 'stagegraph_broadcast_frames_total',
  help: 'Broadcast frames sent to live viewers by this instance.',
  registers: [processRegistry],
});
const viewersDropped = new Counter({
  name: 'stagegraph_live_viewers_dropped_total',
  help: 'Live viewers disconnected because they did not read their frames (send buffer over its limit) or missed a keep-alive.',
  labelNames: ['reason'] as const,
  registers: [processRegistry],
});
const busLag = new Histogram({
  name: 'stagegraph_bus_delivery_lag_seconds',
  help: 'Time from a message being published on the event bus to its delivery to this instance, by topic.',
  labelNames: ['topic'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});
const dataEvents = new Counter({
  name: 'stagegraph_data_events_total',
  help: 'Data events from partners, by outcome (accepted, rejected, or replayed: answered as the first and not applied again) and reason (none when accepted).',
  labelNames: ['outcome', 'reason'] as const,
  registers: [processRegistry],
});
const chatMessages = new Counter({
  name: 'stagegraph_chat_messages_total',
  help: 'Chat messages sent, by outcome (accepted or refused) and the rule or reason of a refusal (none when accepted).',
  labelNames: ['outcome', 'reason'] as const,
  registers: [processRegistry],
});
const webhookDeliveries = new Counter({
  name: 'stagegraph_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by outcome: delivered, retrying (failed, tried again later), failed (given up), endpoint_gone.',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});
const watchTimeRows = new Counter({
  name: 'stagegraph_watch_time_rows_total',
  help: "Minute masks of signed-in viewers' watch time written for quests (one per account, channel and minute in each batch).",
  registers: [processRegistry],
});
const watchTimeStatements = new Counter({
  name: 'stagegraph_watch_time_statements_total',
  help: 'SQL statements the watch-time batches wrote (masks and quest counters): they grow with minutes, not viewers × seconds.',
  registers: [processRegistry],
});
const webhookDuration = new Histogram({
  name: 'stagegraph_webhook_delivery_duration_seconds',
  help: 'Time a webhook receiver took to answer one delivery attempt (or the attempt to fail).',
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

/**
 * Turns recording on or off for the process, and starts the process metrics (CPU, memory, GC, event
 * loop lag as nodejs_eventloop_lag_seconds) once.
 */
export function configureMetrics(on: boolean): void {
  enabled = on;
  if (on && !defaultsCollected) {
    defaultsCollected = true;
    collectDefaultMetrics({ register: processRegistry });
  }
}

/** Whether recording is on (families defined beside this module check it too). */
export const metricsEnabled = (): boolean => enabled;

// ------------------------------------------------------------------ bounded label values

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const ERROR_CODES = new Set<string>([
  ...Object.values(ErrorCode),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'OPERATION_RESOLUTION_FAILURE',
]);
/** Most operation names outside the route table's that get a label value of their own. */
const OTHER_OPERATION_NAMES_LIMIT = 100;
const knownOperations = new Set<string>();
const otherOperations = new Set<string>();
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Names that look like they carry an ID (a run of digits, or of hex) never become a label value. */
const LOOKS_LIKE_ID = /\d{3,}|[0-9a-f]{12,}/i;

/** Registers the operation names of known documents (the route table's, the live server's), always labelled as themselves. */
export function registerOperationNames(documents: Iterable<string>): void {
  for (const document of documents) {
    const name = operationNameOf(document);
    if (name) knownOperations.add(name);
  }
}

/** The name a document gives its (first) operation, if any. */
export function operationNameOf(document: string): string | undefined {
  return /^\s*(?:query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(document)?.[1];
}

/** The label of an operation name: known names as is, a bounded set of others, then `other`. */
export function operationLabel(name: string | null | undefined): string {
  if (!name) return 'anonymous';
  if (knownOperations.has(name) || otherOperations.has(name)) return name;
  if (!OPERATION_NAME.test(name) || LOOKS_LIKE_ID.test(name) || otherOperations.size >= OTHER_OPERATION_NAMES_LIMIT) return 'other';
  otherOperations.add(name);
  return name;
}

// ------------------------------------------------------------------ recording

/**
 * Express middleware counting each request by route template when it is answered. The template is
 * res.locals.route (set where a route is matched); a request no route took is `unmatched`.
 */
export function countHttpRequests(): RequestHandler {
  return (req, res, next) => {
    if (!enabled) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.once('finish', () => countHttpRequest((res.locals.route as string | undefined) ?? 'unmatched', req.method, res.statusCode, started));
    next();
  };
}

/** Counts one answered request of `route` (a template) begun at `started` (hrtime), as countHttpRequests does. */
export function countHttpRequest(route: string, requestMethod: string, status: number, started: bigint): void {
  if (!enabled) return;
  const method = METHODS.has(requestMethod) ? requestMethod : 'OTHER';
  httpRequests.inc({ route, method, status: String(status) });
  httpDuration.observe({ route, method }, Number(process.hrtime.bigint() - started) / 1e9);
}

/** Express middleware naming the route template of what it guards (for metrics and span names). */
export function routeTemplate(route: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = route;
    next();
  };
}

function countErrors(operation: string, errors: readonly { extensions?: Record<string, unknown> }[]): void {
  for (const error of errors) {
    const code = error.extensions?.code;
    graphqlErrors.inc({ operation, code: typeof code === 'string' && ERROR_CODES.has(code) ? code : 'OTHER' });
  }
}

/** Apollo Server plugin counting the gateway's operations by name, with their latency and error codes. */
export function graphqlMetricsPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      if (!enabled) return undefined;
      const started = process.hrtime.bigint();
      let failed = false;
      return {
        async didEncounterErrors({ operationName, errors }) {
          failed = true;
          countErrors(operationLabel(operationName), errors);
        },
        async willSendResponse({ operationName, response }) {
          const body = response.body;
          // Errors in a result the pipeline did not report (a subgraph's, passed through by the gateway).
          const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
          countOperation(operationLabel(operationName), started, failed, failed ? undefined : errors);
        },
      };
    },
  };
}

/** Counts one finished operation; `errors` are counted by code unless they were already. */
function countOperation(operation: string, started: bigint, failed: boolean, errors: readonly { extensions?: Record<string, unknown> }[] | undefined): void {
  if (errors?.length) countErrors(operation, errors);
  graphqlOperations.inc({ operation, outcome: failed || errors?.length ? 'error' : 'ok' });
  graphqlDuration.observe({ operation }, Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Counts an operation the REST bridge runs straight on one subgraph in this process (a route's
 * `subgraph`): no gateway plugin sees it, so it is counted here, as an operation and as that
 * subgraph's fetch, with the same families and labels as the gateway's.
 */
export async function measuredSubgraphOperation(
  subgraph: string,
  operationName: string | undefined,
  run: () => Promise<ExecutionResult>,
): Promise<ExecutionResult> {
  if (!enabled) return run();
  const started = process.hrtime.bigint();
  let result: ExecutionResult | undefined;
  try {
    result = await run();
    return result;
  } finally {
    const errors = result ? result.errors : [{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }];
    countOperation(operationLabel(operationName), started, false, errors);
    const outcome = errors?.length ? 'error' : 'ok';
    subgraphFetches.inc({ subgraph, transport: 'in_process', outcome });
    subgraphDuration.observe({ subgraph, transport: 'in_process' }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/**
 * Counts an operation a subgraph in this process answered without executing it (a quick answer: see
 * shared/quickAnswers.ts), as measuredSubgraphOperation counts one it executed: the same operation, ok,
 * and that subgraph's in-process fetch, so dashboards see the same traffic whichever path answered.
 */
export function countQuickAnswer(subgraph: string, operationName: string | undefined, started: bigint): void {
  if (!enabled) return;
  countOperation(operationLabel(operationName), started, false, undefined);
  subgraphFetches.inc({ subgraph, transport: 'in_process', outcome: 'ok' });
  subgraphDuration.observe({ subgraph, transport: 'in_process' }, Number(process.hrtime.bigint() - started) / 1e9);
}

/** Wraps a subgraph's data source so each fetch of a plan is counted and timed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's own constraint on a context
export function measuredDataSource<C extends Record<string, any>>(
  subgraph: string,
  transport: 'in_process' | 'http',
  source: GraphQLDataSource<C>,
): GraphQLDataSource<C> {
  return {
    async process(options: GraphQLDataSourceProcessOptions<C>): Promise<GatewayGraphQLResponse> {
      if (!enabled) return source.process(options);
      const started = process.hrtime.bigint();
      let outcome = 'error';
      try {
        const response = await source.process(options);
        if (!response.errors?.length) outcome = 'ok';
        return response;
      } finally {
        recordSubgraphFetch(subgraph, transport, outcome, started);
      }
    },
  };
}

/** One fetch of a subgraph, started at `started` (process.hrtime.bigint()), counted and timed as the gateway's are. */
export function recordSubgraphFetch(subgraph: string, transport: 'in_process' | 'http', outcome: string, started: bigint): void {
  if (!enabled) return;
  subgraphFetches.inc({ subgraph, transport, outcome });
  subgraphDuration.observe({ subgraph, transport }, Number(process.hrtime.bigint() - started) / 1e9);
}

/** One broadcast event handed to this instance's viewers, `publishedAt` (ms since epoch) after it was published. */
export function recordFanout(kind: string, publishedAt: number | undefined, frames: number): void {
  if (!enabled) return;
  broadcastFrames.inc(frames);
  if (publishedAt) fanoutLatency.observe({ kind: kind === 'SHOW' ? 'SHOW' : 'CLEAR' }, Math.max(0, Date.now() - publishedAt) / 1000);
}

/** A live viewer dropped by the server (`slow_reader` or `keepalive_missed`). */
export function recordViewerDropped(reason: 'slow_reader' | 'keepalive_missed'): void {
  if (enabled) viewersDropped.inc({ reason });
}

/** A bus message delivered to this instance, published at `publishedAt` (ms since epoch). */
export function recordBusDelivery(topic: string, publishedAt: number): void {
  if (!enabled) return;
  busLag.observe({ topic: (Object.values(Topics) as string[]).includes(topic) ? topic : 'other' }, Math.max(0, Date.now() - publishedAt) / 1000);
}

/** Why a data event was refused: a fixed vocabulary, one label value each. */
export type DataEventRejection = 'too_large' | 'not_found' | 'signature' | 'rate_limited' | 'invalid_json' | 'schema' | 'storage' | 'internal';

/** One data event: accepted (null) or refused for `rejection`. */
export function recordDataEvent(rejection: DataEventRejection | null): void {
  if (!enabled) return;
  dataEvents.inc(rejection ? { outcome: 'rejected', reason: rejection } : { outcome: 'accepted', reason: 'none' });
}

/** Why a data event was a replay: `same_body` = the provider's exact signed body again within the replay window. */
export type DataEventReplay = 'same_body';

/** One replayed data event: answered as the first one was, not stored, counted or evaluated again. */
export function recordDataEventReplay(reason: DataEventReplay): void {
  if (enabled) dataEvents.inc({ outcome: 'replayed', reason });
}

/** Why a chat message was refused: a fixed vocabulary, one label value each. */
export type ChatRefusal =
  'text' | 'not_found' | 'unauthenticated' | 'banned' | 'filtered_word' | 'link' | 'slow_mode' | 'site' | 'chat_mode' | 'warned' | 'error';

/** One chat message: accepted (null) or refused for `refusal`. */
export function recordChatMessage(refusal: ChatRefusal | null): void {
  if (!enabled) return;
  chatMessages.inc(refusal ? { outcome: 'refused', reason: refusal } : { outcome: 'accepted', reason: 'none' });
}

export type WebhookOutcome = 'delivered' | 'retrying' | 'failed' | 'endpoint_gone';

/** One webhook delivery attempt and how long the receiver took (null when none was sent). */
export function recordWebhookDelivery(outcome: WebhookOutcome, seconds: number | null): void {
  if (!enabled) return;
  webhookDeliveries.inc({ outcome });
  if (seconds !== null) webhookDuration.observe(seconds);
}

/** One batch of watch time written: its minute masks and the statements it took. */
export function recordWatchTimeBatch(rows: number, statements: number): void {
  if (!enabled) return;
  watchTimeRows.inc(rows);
  watchTimeStatements.inc(statements);
}

// ------------------------------------------------------------------ exposition

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Whether a caller may read /metrics: with the right `Authorization: Bearer <METRICS_TOKEN>` from
 * anywhere; without it only from loopback, and not through a proxy (which names the real client in
 * Forwarded / X-Forwarded-For), so a reverse proxy on the same host does not open it to the world.
 */
export function mayReadMetrics(
  caller: { remoteAddress: string | undefined; authorization: string | undefined; forwarded: boolean },
  token: string | null,
): boolean {
  if (token && caller.authorization) {
    const given = Buffer.from(caller.authorization);
    const expected = Buffer.from(`Bearer ${token}`);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
  }
  return !caller.forwarded && LOOPBACK.test(caller.remoteAddress ?? '');
}

/** `GET /metrics`: this process's families and the instance's own, in the Prometheus text format. */
export function metricsHandler(token: string | null, ...instance: Registry[]): RequestHandler {
  const registry = instance.length ? Registry.merge([processRegistry, ...instance]) : processRegistry;
  return async (req, res) => {
    if (!enabled) {
      res.status(404).json(restErrorBody('metrics are turned off (METRICS=off)'));
      return;
    }
    const caller = {
      remoteAddress: req.socket.remoteAddress,
      authorization: req.header('authorization'),
      forwarded: req.header('x-forwarded-for') !== undefined || req.header('forwarded') !== undefined,
    };
    if (!mayReadMetrics(caller, token)) {
      res.status(401).json(restErrorBody('GET /metrics off loopback needs Authorization: Bearer <METRICS_TOKEN>'));
      return;
    }
    res.setHeader('content-type', registry.contentType);
    res.send(await registry.metrics());
  };
}

/**
 * Counts an operation the live server answered without the executor (gateway/live/fastReactions.ts):
 * in the same families and labels as the operations the gateway runs, so a fast path hides nothing.
 */
export function recordLiveOperation(operationName: string | null | undefined, started: bigint): void {
  if (enabled) countOperation(operationLabel(operationName), started, false, undefined);
}

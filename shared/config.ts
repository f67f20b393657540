/**
 * Configuration: read from the environment once at start, validated, and handed to every service as a
 * typed object. Nothing else in the code base reads `process.env`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { dnsServers, flag, graphqlLimits, hostPorts, httpUrl, integer, powerOfTwo, publicUrlOf, type Env, type GraphQLLimits } from './configValues';

export { graphqlLimits, type GraphQLLimits } from './configValues';

export interface Config {
  /** Public port of the gateway, REST bridge and graphql-ws endpoint (`PORT`, default 4000). */
  port: number;
  /** Interface the public port binds to (`HOST`, default 0.0.0.0). */
  host: string;
  /** Subgraphs listen on base+1..base+4 (`SUBGRAPH_PORT_BASE`, default 4100). */
  subgraphPortBase: number;
  /** Interface subgraphs bind to and the gateway calls (`SUBGRAPH_HOST`, default 127.0.0.1). */
  subgraphHost: string;
  /** `file:…` for SQLite or `postgresql://…` (`DATABASE_URL`, default file:./data/stagegraph.db). */
  databaseUrl: string;
  /**
   * PostgreSQL connections each process keeps at most (`DATABASE_POOL_SIZE`, default 10). A fleet opens
   * instances × this many: keep it under the server's max_connections (docs/capacity.md).
   */
  databasePoolSize: number;
  /** Redis for the cross-instance event bus (`REDIS_URL`); unset = in-process bus, one instance. */
  redisUrl: string | null;
  /** Prefix of every Redis channel, so several deployments can share one Redis (`REDIS_PREFIX`). */
  redisPrefix: string;
  /** HMAC key for sign-in JWTs (`JWT_SECRET`); unset = generated once and kept in the data folder. */
  jwtSecret: string;
  /** Lifetime of a sign-in JWT in seconds (`JWT_TTL_SECONDS`, default 900). */
  jwtTtlSeconds: number;
  /** HMAC key of the identity the gateway hands to subgraphs (`INTERNAL_SECRET`); like jwtSecret. */
  internalSecret: string;
  /** Key that encrypts partner secrets at rest (`ENCRYPTION_KEY`, 32+ characters); like jwtSecret. */
  encryptionKey: string;
  /**
   * Where viewers reach this service, as links in e-mails name it (`PUBLIC_URL`, an http(s) origin with an
   * optional path, default http://localhost:PORT): a receipt's "link to event" is the channel's watch page there.
   */
  publicUrl: string;
  /** Port of the REST bridge when it runs as its own process (`REST_BRIDGE_PORT`, default 4080). */
  restBridgePort: number;
  /** Where a separately running REST bridge sends its operations (`GATEWAY_URL`, default http://127.0.0.1:PORT/graphql). */
  gatewayUrl: string;
  /** Milliseconds between each instance's live-viewer counts for insights (`PRESENCE_INTERVAL_MS`, default 5000). */
  presenceIntervalMs: number;
  /**
   * Milliseconds an instance keeps a site or developer-key lookup (`AUTH_CACHE_TTL_MS`, default 5000): how long a
   * revoked key can outlive a revocation the bus could not carry (a carried one leaves the cache at once).
   */
  authCacheTtlMs: number;
  /**
   * Milliseconds between two writes of the watch time live viewers earned for quests (`WATCH_FLUSH_MS`,
   * default 10000): each instance writes what it counted in one batch per interval, so database writes
   * grow with time, not viewers × seconds, and a crashed instance loses at most this much watch time.
   */
  watchFlushMs: number;
  /**
   * Whether signed-in viewers' watch time is counted for quests (`WATCH_TIME`, true or false, default
   * true). false exists for the bench's side-by-side measurement of what counting costs the fan-out.
   */
  watchTimeEnabled: boolean;
  /**
   * Milliseconds the chat messages of a room gather before they go to viewers in one event
   * (`CHAT_BATCH_MS`, default 250): at most one message frame per room per interval, and a message that
   * arrives in a quiet room goes at once.
   */
  chatBatchMs: number;
  /**
   * How often each instance reports its chat rooms' viewers and tells viewers the rooms' totals across
   * instances (`CHAT_OCCUPANCY_MS`, default 5000): ChatEvent.viewers changes at most this often.
   */
  chatOccupancyMs: number;
  /**
   * The window of the reaction limit, in seconds (`CHAT_REACTION_RATE_WINDOW_SECONDS`, default 10): an account
   * may react 30 times per window across the site's chats.
   */
  chatReactionRateWindowSeconds: number;
  /**
   * Longest a data event's 201 waits for the overlays of the automation rules it met (`RULE_WAIT_MS`, default
   * 2000): within it the overlays are out when the provider hears 201; past it the answer goes, the event is
   * stored and the rules finish on their own.
   */
  ruleWaitMs: number;
  /** Days a chat message is kept and shown in history (`CHAT_RETENTION_DAYS`, default 30). */
  chatRetentionDays: number;
  /**
   * How long a draining instance (after SIGTERM) goes on answering before it closes (`SHUTDOWN_GRACE_MS`,
   * default 3000). /ready answers 503 from the first moment, so this must outlast the balancer's health-check
   * fall time (deploy/haproxy.cfg: fall 2 × inter 500 ms = 1 s) plus a request's usual time, or the balancer
   * still sends requests to a closed port.
   */
  shutdownGraceMs: number;
  /**
   * Messages the Redis bus keeps in its stream (`BUS_STREAM_MAX_LENGTH`, default 10000, trimmed roughly):
   * what an instance whose connection dropped can still read when it is back. 10,000 covers minutes of
   * broadcasts and cache announcements at their usual rates, at ~1-2 KB each (about 10-20 MB of Redis memory).
   */
  busStreamMaxLength: number;
  /** Largest accepted request body in bytes (`BODY_LIMIT_BYTES`, default 1 MiB). */
  bodyLimitBytes: number;
  /** pino level (`LOG_LEVEL`, default info; `silent` turns logs off). */
  logLevel: string;
  /** Where generated secrets and the default SQLite file live (`DATA_DIR`, default ./data). */
  dataDir: string;
  /** How long one webhook delivery attempt may take before it counts as failed (`WEBHOOK_TIMEOUT_MS`, default 10000). */
  webhookTimeoutMs: number;
  /**
   * Delay before the first retry of a failed webhook delivery (`WEBHOOK_RETRY_BASE_MS`, default 5000);
   * each further retry waits twice as long, up to `webhookRetryMaxMs`.
   */
  webhookRetryBaseMs: number;
  /** Longest wait between two webhook delivery attempts (`WEBHOOK_RETRY_MAX_MS`, default 3600000). */
  webhookRetryMaxMs: number;
  /** Attempts before a webhook delivery is given up as failed (`WEBHOOK_MAX_ATTEMPTS`, default 12). */
  webhookMaxAttempts: number;
  /** How long a playlist import may wait for the external video platform (`VIDEO_PLATFORM_TIMEOUT_MS`, default 10000). */
  videoPlatformTimeoutMs: number;
  /**
   * Where a YouTube playlist's Atom feed is read (`YOUTUBE_FEED_URL`, default
   * `https://www.youtube.com/feeds/videos.xml`; `?playlist_id=` is added). Another value only points the import
   * at a stand-in of the same shape: a test's local server, or a caching proxy.
   */
  youtubeFeedUrl: string;
  /**
   * The Dailymotion API a Dailymotion playlist is read through (`DAILYMOTION_API_URL`, default
   * `https://api.dailymotion.com`). Another value only points the import at a stand-in of the same shape.
   */
  dailymotionApiUrl: string;
  /**
   * Where e-mail is sent (`SMTP_URL`, e.g. smtps://user:pass@smtp.example.com:465); unset = e-mail stays
   * in the outbox the site admin reads, so a local `npm start` needs no mail server.
   */
  smtpUrl: string | null;
  /** Default sender of the service's e-mail (`MAIL_FROM`, default `stagegraph <no-reply@localhost>`). */
  mailFrom: string;
  /**
   * The SPF include of the mail provider a site names in its DNS to let the service send as its domain
   * (`MAIL_SPF_INCLUDE`, default `_spf.` + the SMTP host, or `_spf.localhost` without SMTP_URL).
   */
  mailSpfInclude: string;
  /**
   * DNS servers that sender domains are checked at (`DNS_SERVERS`, comma-separated `ip[:port]`, IPv6 as
   * `[ip]:port`); null = the system's resolvers. Tests point it at a DNS server of their own on loopback.
   */
  dnsServers: string[] | null;
  /** How long one DNS question of a sender check may wait for its answer (`DNS_TIMEOUT_MS`, default 5000). */
  dnsTimeoutMs: number;
  /**
   * Milliseconds between two checks of a site's sender domain (`SENDER_RECHECK_MS`, default 3600000):
   * a pending domain is verified once its record appears, a verified one fails once it disappears.
   */
  senderRecheckMs: number;
  /** Lifetime of a refresh token in seconds (`REFRESH_TOKEN_TTL_SECONDS`, default 30 days). */
  refreshTokenTtlSeconds: number;
  /** Lifetime of a password-reset link in seconds (`PASSWORD_RESET_TTL_SECONDS`, default 3600). */
  passwordResetTtlSeconds: number;
  /**
   * scrypt's cost N for new password hashes (`PASSWORD_HASH_COST`, a power of two, 1024–65536, default 16384).
   * A stored hash carries its own N, so hashes made at another cost still verify.
   */
  passwordHashCost: number;
  /** Milliseconds one call to a streaming provider's URL may take before it is abandoned (`PROVIDER_TIMEOUT_MS`, default 5000). */
  providerTimeoutMs: number;
  /** Extra attempts after a network error or 5xx from a streaming provider, with doubling backoff; 4xx is never retried (`PROVIDER_RETRIES`, default 2). */
  providerRetries: number;
  /** Image a stream's transcoder shows while the encoder reconnects, when the create call names none (`STREAM_FALLBACK_IMAGE_URL`, http(s); unset = the call must name one). */
  streamFallbackImageUrl: string | null;
  /**
   * Seconds a signed playback URL plays after the content check gave it (`PLAYBACK_TOKEN_TTL_SECONDS`,
   * 30–86,400, default 600): a gated channel's or a paid video's URL, when its provider takes signed
   * playback. A viewer whose pass lapses, or who is banned, loses playback within this time.
   */
  playbackTokenTtlSeconds: number;
  /** Data events one provider may send per window before getting 429 (`DATA_EVENT_RATE_LIMIT`, default 1000). */
  dataEventRateLimit: number;
  /** Length of that window in seconds (`DATA_EVENT_RATE_WINDOW_SECONDS`, default 1). */
  dataEventRateWindowSeconds: number;
  /**
   * Bearer token that opens `GET /metrics` to callers off loopback (`METRICS_TOKEN`); unset = /metrics
   * answers loopback callers only (and not those that came through a proxy, which sends X-Forwarded-For).
   */
  metricsToken: string | null;
  /**
   * Whether Prometheus metrics are recorded and served (`METRICS`, `on` or `off`, default on). `off`
   * exists for the bench's baseline, to measure what metrics cost; a deployment leaves it on.
   */
  metricsEnabled: boolean;
  /**
   * Whether `GET /graphiql` serves GraphiQL (`GRAPHIQL`, `on` or `off`, default on): an IDE bundled into
   * stagegraph that holds no credential of its own; a developer enters their site ID and developer key in
   * it. `off` leaves the path out (404).
   */
  graphiql: boolean;
  /**
   * Base URL of an OpenTelemetry collector's OTLP/HTTP receiver (`OTEL_EXPORTER_OTLP_ENDPOINT`, e.g.
   * http://127.0.0.1:4318); spans go to `<endpoint>/v1/traces` as OTLP JSON. Unset = no tracing, and no
   * tracing SDK is loaded.
   */
  otlpEndpoint: string | null;
  /**
   * Limits every GraphQL document meets before it is validated, on HTTP /graphql, the REST bridge and
   * graphql-ws alike (gateway/documentLimits.ts), so that no document can hold the event loop: the
   * field-merging validation of graphql-js is quadratic in repeated fields. `GRAPHQL_LIMITS=off` turns
   * them off; that is for the bench's side-by-side measurement only, never for a deployment.
   * Null = off.
   */
  graphqlLimits: GraphQLLimits | null;
  /**
   * Whether the gateway runs @apollo/gateway's own response shaping and operation building instead of ours
   * (`GATEWAY_STOCK`, true or false, default false; gateway/responseShaping.ts), and sends each fetch of a plan
   * on its own (gateway/fetchBatches.ts merges side-by-side entity fetches to one subgraph): for comparing
   * answers. Our shaping runs only on the dependency versions it was proven on, whatever this says.
   */
  gatewayStock: boolean;
  /** Live subscriptions one graphql-ws socket may hold at once (`LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET`, default 10). */
  liveMaxSubscriptionsPerSocket: number;
  /** Milliseconds between the comment lines that keep an idle Server-Sent Events stream open (`SSE_HEARTBEAT_MS`, default 12000, graphql-sse's). */
  sseHeartbeatMs: number;
  /** Milliseconds between the `{}` parts that keep an idle multipart subscription open (`MULTIPART_HEARTBEAT_MS`, default 5000, Apollo's). */
  multipartHeartbeatMs: number;
  /**
   * Outbound calls (streaming-provider URLs, webhook endpoints, playlist import) may reach loopback,
   * private, link-local and other non-public addresses (`OUTBOUND_ALLOW_PRIVATE=true`; default false).
   * For local development and tests with partners on 127.0.0.1 only.
   */
  outboundAllowPrivate: boolean;
  /**
   * Exactly these `host:port` targets may be reached by outbound calls although they are loopback or
   * private (`OUTBOUND_ALLOW_HOSTS`, comma-separated, e.g. `127.0.0.1:4200,[::1]:4200,provider.lan:4200`;
   * default none): a streaming provider on the same machine without opening every private address as
   * OUTBOUND_ALLOW_PRIVATE does. Hosts are normalized as a URL would (lowercase, `127.1` → `127.0.0.1`);
   * a port is required. Every other non-public target stays refused, when registered and when connecting.
   */
  outboundAllowHosts: string[];
}

/** Secrets not given in the environment are generated once and kept in `<dataDir>/secrets.json`. */
function loadGeneratedSecrets(dataDir: string): Record<string, string> {
  const file = resolve(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const secrets = {
    jwtSecret: randomBytes(32).toString('hex'),
    internalSecret: randomBytes(32).toString('hex'),
    encryptionKey: randomBytes(32).toString('hex'),
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || `file:${resolve(dataDir, 'stagegraph.db')}`;
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)');
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new Error('REDIS_URL must start with redis:// or rediss://');

  const needsGenerated = !env.JWT_SECRET || !env.INTERNAL_SECRET || !env.ENCRYPTION_KEY;
  const generated = needsGenerated ? loadGeneratedSecrets(dataDir) : {};
  const secret = (name: string, key: string): string => {
    const value = env[name] || generated[key];
    if (!value || value.length < 32) throw new Error(`${name} must be at least 32 characters`);
    return value;
  };

  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new Error('SMTP_URL must start with smtp:// or smtps://');
  const streamFallbackImageUrl = env.STREAM_FALLBACK_IMAGE_URL || null;
  if (streamFallbackImageUrl && !/^https?:\/\/\S+$/.test(streamFallbackImageUrl)) throw new Error('STREAM_FALLBACK_IMAGE_URL must be an http(s) URL');

  const otlpEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || null;
  if (otlpEndpoint && !/^https?:\/\/\S+$/.test(otlpEndpoint)) throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL');
  const metrics = env.METRICS || 'on';
  if (metrics !== 'on' && metrics !== 'off') throw new Error('METRICS must be on or off');
  const graphiql = env.GRAPHIQL || 'on';
  if (graphiql !== 'on' && graphiql !== 'off') throw new Error('GRAPHIQL must be on or off');
  if (env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== '' && env.METRICS_TOKEN.length < 16)
    throw new Error('METRICS_TOKEN must be at least 16 characters');

  const port = integer(env, 'PORT', 4000);
  return {
    port,
    publicUrl: publicUrlOf(env.PUBLIC_URL, port),
    restBridgePort: integer(env, 'REST_BRIDGE_PORT', 4080),
    gatewayUrl: env.GATEWAY_URL || `http://127.0.0.1:${port}/graphql`,
    host: env.HOST || '0.0.0.0',
    subgraphPortBase: integer(env, 'SUBGRAPH_PORT_BASE', 4100),
    subgraphHost: env.SUBGRAPH_HOST || '127.0.0.1',
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'stagegraph',
    jwtSecret: secret('JWT_SECRET', 'jwtSecret'),
    jwtTtlSeconds: integer(env, 'JWT_TTL_SECONDS', 900, 30, 86400),
    internalSecret: secret('INTERNAL_SECRET', 'internalSecret'),
    encryptionKey: secret('ENCRYPTION_KEY', 'encryptionKey'),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    presenceIntervalMs: integer(env, 'PRESENCE_INTERVAL_MS', 5000, 50, 600_000),
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 5000, 0, 3_600_000),
    watchFlushMs: integer(env, 'WATCH_FLUSH_MS', 10_000, 50, 600_000),
    watchTimeEnabled: flag(env, 'WATCH_TIME', true),
    chatBatchMs: integer(env, 'CHAT_BATCH_MS', 250, 10, 5000),
    chatOccupancyMs: integer(env, 'CHAT_OCCUPANCY_MS', 5000, 100, 60_000),
    chatReactionRateWindowSeconds: integer(env, 'CHAT_REACTION_RATE_WINDOW_SECONDS', 10, 1, 3600),
    ruleWaitMs: integer(env, 'RULE_WAIT_MS', 2000, 0, 60_000),
    chatRetentionDays: integer(env, 'CHAT_RETENTION_DAYS', 30, 1, 3650),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 3000, 0, 600_000),
    busStreamMaxLength: integer(env, 'BUS_STREAM_MAX_LENGTH', 10_000, 100, 10_000_000),
    logLevel: env.LOG_LEVEL || 'info',
    dataDir,
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 10, 3_600_000),
    webhookRetryMaxMs: integer(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000, 10, 86_400_000),
    webhookMaxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 12, 1, 100),
    videoPlatformTimeoutMs: integer(env, 'VIDEO_PLATFORM_TIMEOUT_MS', 10_000, 100, 120_000),
    youtubeFeedUrl: httpUrl(env, 'YOUTUBE_FEED_URL', 'https://www.youtube.com/feeds/videos.xml'),
    dailymotionApiUrl: httpUrl(env, 'DAILYMOTION_API_URL', 'https://api.dailymotion.com').replace(/\/+$/, ''),
    smtpUrl,
    mailFrom: env.MAIL_FROM || 'stagegraph <no-reply@localhost>',
    mailSpfInclude: env.MAIL_SPF_INCLUDE || `_spf.${smtpUrl ? new URL(smtpUrl).hostname : 'localhost'}`,
    dnsServers: dnsServers(env),
    dnsTimeoutMs: integer(env, 'DNS_TIMEOUT_MS', 5_000, 50, 60_000),
    senderRecheckMs: integer(env, 'SENDER_RECHECK_MS', 3_600_000, 100, 7 * 86_400_000),
    refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86400, 60, 365 * 86400),
    passwordResetTtlSeconds: integer(env, 'PASSWORD_RESET_TTL_SECONDS', 3600, 60, 7 * 86400),
    passwordHashCost: powerOfTwo(env, 'PASSWORD_HASH_COST', 16384, 1024, 65536),
    providerTimeoutMs: integer(env, 'PROVIDER_TIMEOUT_MS', 5000, 100, 120_000),
    providerRetries: integer(env, 'PROVIDER_RETRIES', 2, 0, 10),
    streamFallbackImageUrl,
    playbackTokenTtlSeconds: integer(env, 'PLAYBACK_TOKEN_TTL_SECONDS', 600, 30, 86_400),
    dataEventRateLimit: integer(env, 'DATA_EVENT_RATE_LIMIT', 1000, 1, 10_000_000),
    dataEventRateWindowSeconds: integer(env, 'DATA_EVENT_RATE_WINDOW_SECONDS', 1, 1, 86_400),
    metricsToken: env.METRICS_TOKEN || null,
    metricsEnabled: metrics === 'on',
    graphiql: graphiql === 'on',
    otlpEndpoint: otlpEndpoint?.replace(/\/+$/, '') ?? null,
    graphqlLimits: graphqlLimits(env),
    gatewayStock: flag(env, 'GATEWAY_STOCK', false),
    liveMaxSubscriptionsPerSocket: integer(env, 'LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET', 10, 1, 10_000),
    sseHeartbeatMs: integer(env, 'SSE_HEARTBEAT_MS', 12_000, 10, 600_000),
    multipartHeartbeatMs: integer(env, 'MULTIPART_HEARTBEAT_MS', 5_000, 10, 600_000),
    outboundAllowPrivate: flag(env, 'OUTBOUND_ALLOW_PRIVATE', false),
    outboundAllowHosts: hostPorts(env, 'OUTBOUND_ALLOW_HOSTS'),
  };
}

/** The four subgraphs, in port order: content is base+1 … integrations base+4. */
export const SUBGRAPH_NAMES = ['content', 'community', 'overlays', 'integrations'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** The port a subgraph listens on; with base 0 every subgraph takes any free port (tests). */
export function subgraphPort(config: Config, name: SubgraphName): number {
  return config.subgraphPortBase === 0 ? 0 : config.subgraphPortBase + SUBGRAPH_NAMES.indexOf(name) + 1;
}

export function subgraphUrl(config: Config, name: SubgraphName): string {
  return `http://${config.subgraphHost}:${subgraphPort(config, name)}/graphql`;
}

/**
 * Starts the real stack for a test: every service on a free port, a throwaway database, Redis when
 * REDIS_URL is set (on a channel prefix of its own), logs off. Everything started is closed by stopAll().
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '../../shared/bus';
import { signSessionToken } from '../../shared/auth/credentials';
import type { AccountRole } from '../../shared/auth/identity';
import { loadConfig, type Config } from '../../shared/config';
import { createLogger, type Logger } from '../../shared/logger';
import { startStack, type Stack } from '../../stack';
import { provisionSite, type ProvisionedSite } from '../../subgraphs/community/sites';
import { createTestDatabase, type TestDatabase } from './database';

const started: Stack[] = [];
const databases: TestDatabase[] = [];
/** Each stack's DATA_DIR (SQLite files of its own, uploads), removed with it. */
const dataDirs: string[] = [];

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
  INTERNAL_SECRET: 'test-internal-secret-0123456789abcdef012345',
  ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef0123456',
};

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-data-'));
  dataDirs.push(dir);
  return dir;
}

export function testConfig(databaseUrl: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SUBGRAPH_PORT_BASE: '0',
    DATA_DIR: newDataDir(),
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL,
    REDIS_PREFIX: `sgtest-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Fake partners listen on 127.0.0.1; the SSRF suite sets it back to false.
    OUTBOUND_ALLOW_PRIVATE: 'true',
    // The least scrypt cost allowed: the suite hashes a few hundred passwords (test/community/password-cost.unit.ts
    // checks the default and that hashes of any cost verify).
    PASSWORD_HASH_COST: '1024',
    ...TEST_SECRETS,
    ...extra,
  });
}

export interface StartOptions {
  /** Reuse the database (and Redis prefix) of another stack: a second instance of the same deployment. */
  sameDeploymentAs?: Stack;
  /** Share an in-process bus between stacks (several instances without Redis). */
  bus?: EventBus;
  /** Where the stack logs (default: a silent logger). */
  logger?: Logger;
  /** Extra environment for the stack's configuration, e.g. { PRESENCE_INTERVAL_MS: '100' }. */
  env?: Record<string, string>;
  /** The gateway calls the subgraphs over HTTP instead of in-process. */
  subgraphsOverHttp?: boolean;
  /** The clock of time-based rules (recurring passes), which the test moves. */
  now?: () => number;
}

export async function startTestStack(options: StartOptions = {}): Promise<Stack> {
  let config: Config;
  if (options.sameDeploymentAs) {
    const other = options.sameDeploymentAs.config;
    config = { ...testConfig(other.databaseUrl, options.env), redisPrefix: other.redisPrefix };
  } else {
    const database = await createTestDatabase();
    databases.push(database);
    config = testConfig(database.url, options.env);
  }
  const stack = await startStack(config, {
    logger: options.logger ?? createLogger(config.logLevel),
    bus: options.bus,
    subgraphsOverHttp: options.subgraphsOverHttp,
    now: options.now,
  });
  started.push(stack);
  return stack;
}

/** Closes every stack started by this file, then drops their databases. */
export async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((stack) => stack.close()));
  await Promise.all(databases.splice(0).map((database) => database.drop()));
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface TestSite extends ProvisionedSite {
  /** Headers of a caller with the site ID and developer key (C + D). */
  admin: Record<string, string>;
  /** A sign-in JWT of a new account on this site with the given roles and tags. */
  token(roles: AccountRole[], tags?: string[]): Promise<string>;
  /** A new account on this site and its sign-in JWT. */
  signIn(roles: AccountRole[], tags?: string[]): Promise<{ accountId: string; token: string }>;
}

/** A site on the stack's database; its accounts' JWTs are signed with the stack's secret (a fleet's too, given its database and configuration). */
export async function createTestSite(stack: Pick<Stack, 'database' | 'config'>, name = 'Test site'): Promise<TestSite> {
  const site = await provisionSite(stack.database.prisma, { name });
  const signIn = async (roles: AccountRole[], tags: string[] = []) => {
    const accountId = await provisionAccount(stack, site.siteId, roles, tags);
    return { accountId, token: signSessionToken({ sub: accountId, site: site.siteId, roles }, stack.config.jwtSecret, stack.config.jwtTtlSeconds) };
  };
  return {
    ...site,
    admin: { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey },
    token: async (roles, tags = []) => (await signIn(roles, tags)).token,
    signIn,
  };
}

/** A stack with the site under test and another site (for tenancy checks), as a feature's test file starts. */
export async function startTwoSiteStack(siteName: string): Promise<{ stack: Stack; site: TestSite; other: TestSite }> {
  const stack = await startTestStack();
  const site = await createTestSite(stack, siteName);
  const other = await createTestSite(stack, 'Other site');
  return { stack, site, other };
}

/** Disposes the file's live clients (graphql-ws), then stops every stack it started. */
export async function stopAllWithClients(clients: readonly { dispose(): void | Promise<void> }[]): Promise<void> {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await stopAll();
}

/**
 * Test data: gives an account an active entitlement (creating the SKU when new). The community
 * subgraph's own operations for this are tested on their own; this only sets the stage.
 */
export async function grantEntitlement(stack: Pick<Stack, 'database'>, siteId: string, accountId: string, sku: string, grantedMethod = 'admin'): Promise<void> {
  const now = new Date();
  const db = stack.database.prisma;
  const entitlement =
    (await db.entitlement.findUnique({ where: { siteId_sku: { siteId, sku } } })) ??
    (await db.entitlement.create({
      data: {
        id: randomBytes(12).toString('hex'),
        siteId,
        sku,
        name: sku,
        prices: [{ currency: 'USD', default: true, value: 10 }],
        tags: [],
        createdAt: now,
        updatedAt: now,
      },
    }));
  await db.subscription.create({
    data: {
      id: randomBytes(12).toString('hex'),
      siteId,
      accountId,
      entitlementId: entitlement.id,
      status: 'active',
      grantedMethod,
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * Test data: a page (a channel unless `type` says landing) of the content subgraph, for what refers to
 * channels (streams, broadcasts). The content subgraph's own page operations are tested on their own.
 */
export async function createChannel(stack: Pick<Stack, 'database'>, siteId: string, type: 'channel' | 'landing' = 'channel'): Promise<string> {
  const id = randomBytes(12).toString('hex');
  const now = new Date();
  await stack.database.prisma.page.create({
    data: { id, siteId, slug: `page-${id}`, type, document: { data: { name: `Page ${id}` } }, tags: [], createdAt: now, updatedAt: now },
  });
  return id;
}

const namedChannels = new Map<string, Promise<string>>();

/**
 * Test data: the channel page a test calls `name` on a site, made on first use and the same afterwards,
 * so a test keeps its readable channel names while viewers subscribe to real channels (made-up channel
 * IDs are refused).
 */
export function channelNamed(stack: Pick<Stack, 'database'>, siteId: string, name: string): Promise<string> {
  const key = `${siteId}\u0000${name}`;
  let channel = namedChannels.get(key);
  if (!channel) namedChannels.set(key, (channel = createChannel(stack, siteId)));
  return channel;
}

async function provisionAccount(stack: Pick<Stack, 'database'>, siteId: string, roles: AccountRole[], tags: string[]): Promise<string> {
  const id = randomBytes(12).toString('hex');
  const now = new Date();
  await stack.database.prisma.account.create({
    data: { id, siteId, email: `${id}@example.test`, name: id, roles: roles, tags, createdAt: now, updatedAt: now },
  });
  return id;
}

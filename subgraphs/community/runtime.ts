/**
 * What one community subgraph server keeps between requests: the mailer (SMTP connections), the
 * compiled receipt templates, the timer that checks sender domains again and the clock recurring passes
 * are read by; closed with the server. Also the per-request batching of Account.subscriptions, so a
 * listing of 50 accounts reads their holdings in one query, not 50.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { requireSite } from '../../shared/auth/access';
import { unauthenticated } from '../../shared/errors';
import type { Identity } from '../../shared/auth/identity';
import type { Logger } from '../../shared/logger';
import type { ServiceDeps, SubgraphContext } from '../../shared/subgraph';
import { Mailer } from './mail';
import { RateLimits } from './rateLimits';
import { TemplateCache } from './receipts';
import { SenderRechecks } from './senders/verification';
import type { AccountSubscriptionModel } from './schema.mappers';

export interface CommunityRuntime {
  mailer: Mailer;
  templates: TemplateCache;
  /** Sign-in, reset, TV-code and access-code limits (in Redis with REDIS_URL). */
  limits: RateLimits;
  /** Checks sender domains in DNS again, from the server's start to its stop. */
  senderRechecks: SenderRechecks;
  /** Milliseconds since the epoch: when a recurring pass's period has ended (tests set the clock). */
  now: () => number;
  /** Starts the rechecks with the server; closes them, the mailer and the limits when it stops. */
  plugin: ApolloServerPlugin<SubgraphContext>;
}

/** The runtime of one server: a mailer, a template cache, the rate limits and sender rechecks, closed when the server stops. */
export function createRuntime(logger: Logger, deps: Pick<ServiceDeps, 'config' | 'database' | 'bus' | 'now'>): CommunityRuntime {
  const { config, database } = deps;
  const mailer = new Mailer(logger.child({ component: 'mail' }));
  const limits = new RateLimits(config, logger.child({ component: 'rate-limits' }));
  const senderRechecks = new SenderRechecks(database.prisma, config, logger.child({ component: 'sender-domains' }));
  return {
    mailer,
    templates: new TemplateCache(),
    limits,
    senderRechecks,
    now: deps.now ?? Date.now,
    plugin: {
      async serverWillStart() {
        senderRechecks.start();
        return {
          async serverWillStop() {
            await senderRechecks.stop();
            await mailer.close();
            await limits.close();
          },
        };
      },
    },
  };
}

/** The signed-in account's ID and site (J); anything else is 401. */
export function requireAccount(identity: Identity): { siteId: string; accountId: string } {
  const siteId = requireSite(identity);
  if (!identity.account) throw unauthenticated('Authorization: Bearer <JWT> is required');
  return { siteId, accountId: identity.account.id };
}

interface Waiting<T> {
  key: string;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** A loader that reads every key asked for in the same tick with one call of `fetch`. */
function batched<T>(fetch: (keys: string[]) => Promise<Map<string, T>>, missing: () => T): (key: string) => Promise<T> {
  let queue: Waiting<T>[] = [];
  return (key) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) {
        queueMicrotask(() => {
          const batch = queue;
          queue = [];
          fetch([...new Set(batch.map((entry) => entry.key))]).then(
            (found) => batch.forEach((entry) => entry.resolve(found.get(entry.key) ?? missing())),
            (error: unknown) => batch.forEach((entry) => entry.reject(error)),
          );
        });
      }
      queue.push({ key, resolve, reject });
    });
}

const subscriptionLoaders = new WeakMap<SubgraphContext, (accountId: string) => Promise<AccountSubscriptionModel[]>>();

/** Account.subscriptions, batched per request. */
export function loadSubscriptions(ctx: SubgraphContext, accountId: string): Promise<AccountSubscriptionModel[]> {
  let load = subscriptionLoaders.get(ctx);
  if (!load) {
    load = batched(
      async (accountIds) => {
        // Every account of a request is of the caller's site: the (siteId, accountId) index answers.
        const rows = await ctx.db.subscription.findMany({
          where: { ...(ctx.identity.siteId ? { siteId: ctx.identity.siteId } : {}), accountId: { in: accountIds } },
          include: { entitlement: true },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        });
        const byAccount = new Map<string, AccountSubscriptionModel[]>();
        for (const row of rows) byAccount.set(row.accountId, [...(byAccount.get(row.accountId) ?? []), row]);
        return byAccount;
      },
      () => [],
    );
    subscriptionLoaders.set(ctx, load);
  }
  return load(accountId);
}

/** Names on the content subgraph's leaderboard and chat messages: the community owns accounts, so it adds them. */
import DataLoader from 'dataloader';
import type { Db } from '../../../shared/db/client';
import type { Resolvers } from '../resolvers.generated';

const loaders = new WeakMap<object, DataLoader<string, string | null>>();

/** Names of one request's accounts in one query, however many entries a page holds; only the caller's site. */
function nameLoader(request: object, db: Db, siteId: string): DataLoader<string, string | null> {
  let loader = loaders.get(request);
  if (!loader) {
    loader = new DataLoader(
      async (ids: readonly string[]) => {
        const accounts = await db.account.findMany({ where: { siteId, id: { in: [...ids] } }, select: { id: true, name: true } });
        const byId = new Map(accounts.map((account) => [account.id, account.name]));
        return ids.map((id) => byId.get(id) ?? null);
        // Batching only: one identity may serve a socket's many operations, and names change.
      },
      { cache: false },
    );
    loaders.set(request, loader);
  }
  return loader;
}

/** An entity of the content subgraph keyed by account, with the account's name; an account of another site (or none) reads as null. */
async function withName(reference: { accountId: string }, { identity, db }: { identity: { siteId: string | null }; db: Db }) {
  return { accountId: reference.accountId, name: identity.siteId ? await nameLoader(identity, db, identity.siteId).load(reference.accountId) : null };
}

export function leaderboardResolvers(): Resolvers {
  return {
    // Only the name crosses over.
    LeaderboardEntry: { __resolveReference: withName },
    ChatAuthor: { __resolveReference: withName },
    QaAuthor: { __resolveReference: withName },
    ChatReply: { __resolveReference: async (reference, ctx) => ({ id: reference.id, ...(await withName(reference, ctx)) }) },
  };
}

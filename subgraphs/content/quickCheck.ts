/**
 * The content check offered to the REST bridge as a quick answer (shared/quickAnswers.ts): answered from
 * what the instance keeps when it is the plain happy case (checkContentKept), as the GraphQL fields the
 * normal path would give (contentCheckFields.ts); otherwise null and the operation executes as always.
 */
import type { Identity } from '../../shared/auth/identity';
import type { QuickAnswer } from '../../shared/quickAnswers';
import type { ServiceDeps } from '../../shared/subgraph';
import type { AccountAccessCache } from './checkInputs';
import { checkContentKept } from './contentCheck';
import { contentCheckFields } from './contentCheckFields';
import type { ViewerReads } from './viewerReads';

/** A string variable as given, null when absent, undefined when it is not a string (the normal path refuses it). */
const text = (value: unknown): string | null | undefined => (typeof value === 'string' ? value : value === null || value === undefined ? null : undefined);

/** Registers the quick content check on `deps.quickAnswers` (when the deployment has one); `withdraw` removes it. */
export function offerQuickContentCheck(deps: ServiceDeps, reads: ViewerReads, access: AccountAccessCache): { withdraw(): void } {
  const answers = deps.quickAnswers;
  const { database, bus, supergraph } = deps;
  const answer: QuickAnswer = async (variables, identity: Identity) => {
    const [pageId, slug, deviceId, password] = ['pageId', 'slug', 'deviceId', 'password'].map((name) => text(variables[name]));
    if (!identity.siteId || typeof deviceId !== 'string' || pageId === undefined || slug === undefined || password === undefined) return null;
    const ctx = { db: database.prisma, bus, supergraph, identity, reads, access, playbackTokenTtlSeconds: deps.config.playbackTokenTtlSeconds };
    const model = await checkContentKept(ctx, identity.siteId, { pageId, slug, deviceId, password });
    if (!model) return null;
    return contentCheckFields(model);
  };
  if (answers) answers.contentCheck = answer;
  return {
    withdraw() {
      if (answers?.contentCheck === answer) delete answers.contentCheck;
    },
  };
}

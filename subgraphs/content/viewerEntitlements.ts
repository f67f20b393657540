/**
 * The SKUs a signed-in viewer holds, as the content check and the video views weigh them: asked of the
 * community subgraph (`me { subscriptions }`) and kept per instance (checkInputs.ts) until one lapses or
 * the bus says they changed.
 */
import type { Identity } from '../../shared/auth/identity';
import type { SupergraphClient } from '../../shared/supergraph';
import type { AccountAccessCache } from './checkInputs';

/** What reading a viewer's entitlements needs. */
export interface EntitlementReader {
  identity: Identity;
  supergraph: SupergraphClient;
  /** The accounts' entitlements and devices kept on this instance (checkInputs.ts). */
  access: AccountAccessCache;
}

const ENTITLEMENTS = /* GraphQL */ `query ContentCheckEntitlements { me { id subscriptions { status activeUntil entitlement { sku } } } }`;

type Held = { status: string; activeUntil: number | null; entitlement: { sku: string } };

/**
 * SKUs the signed-in account holds with an active subscription, kept until one lapses or the bus says
 * they changed. Kept SKUs are trusted only when they let the viewer in (`passes`): a refusal reads them
 * afresh, so a grant counts at once even where no announcement reached this instance.
 */
export async function heldSkus(ctx: EntitlementReader, siteId: string, passes: (held: ReadonlySet<string>) => boolean): Promise<Set<string>> {
  const { account } = ctx.identity;
  if (!account) return new Set();
  const kept = ctx.access.heldSkus(siteId, account.id);
  if (kept && passes(new Set(kept))) return new Set(kept);
  ctx.access.skus.drop(siteId, account.id);
  const skus = await ctx.access.heldSkusThrough(siteId, account.id, async () => {
    const { me } = await ctx.supergraph.execute<{ me: { subscriptions: Held[] } | null }>(ENTITLEMENTS, {}, ctx.identity);
    const active = (me?.subscriptions ?? []).filter((subscription) => subscription.status === 'active');
    const ends = active.flatMap((subscription) => (subscription.activeUntil === null ? [] : [subscription.activeUntil]));
    return { skus: active.map((subscription) => subscription.entitlement.sku), until: ends.length ? Math.min(...ends) : null };
  });
  return new Set(skus);
}

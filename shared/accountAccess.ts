/**
 * What an account holds (its active entitlements) and plays on (its devices) changed: the content check
 * keeps both per instance (subgraphs/content/checkInputs.ts) so a gated channel's go-live is answered
 * without a database read, and drops an account's copy on every instance when this is announced. The
 * community subgraph announces entitlement changes; the content check announces the devices it records.
 *
 * Announced as the viewer-read changes are (shared/viewerReads.ts): this process's listeners hear it at
 * once, before the change is answered, and while Redis is away the announcement is held (the latest per
 * account) and published once it is back, so no instance keeps serving what was revoked.
 */
import { Topics, type EventBus } from './bus';
import { listenLocalFirst, tellLocalListeners } from './bus/localFirst';

export type AccessPart = 'entitlements' | 'devices';

export interface AccountAccessMessage {
  /** null: every site (a caller without a site, e.g. the super API key). */
  siteId: string | null;
  /** null: every account of the site (an admin's change, whose accounts are not known here). */
  accountId: string | null;
  part: AccessPart;
  /** The cache that made the change and keeps its own copy up to date; it ignores its own announcements. */
  origin?: string;
}

/** Calls `listener` whenever an account's access changes, here (at once) or on another instance. */
export function onAccountAccessChanged(bus: EventBus, listener: (message: AccountAccessMessage) => void): () => void {
  return listenLocalFirst(bus, Topics.accountAccessChanged, (message) => {
    const change = message as AccountAccessMessage | null;
    if (change && (typeof change.siteId === 'string' || change.siteId === null) && (change.part === 'entitlements' || change.part === 'devices'))
      listener(change);
  });
}

/**
 * Tells every instance that the access of `accountId` (null: of every account of the site) changed.
 * Never throws: while the bus refuses the publish, the announcement is held and sent once it is back.
 */
export function announceAccountAccess(bus: EventBus, message: AccountAccessMessage): void {
  tellLocalListeners(bus, Topics.accountAccessChanged, message);
  bus.announce(Topics.accountAccessChanged, `${message.siteId ?? '*'}:${message.accountId ?? '*'}:${message.part}`, 'latest', message);
}

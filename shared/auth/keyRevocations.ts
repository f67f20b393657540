/**
 * A revoked developer key, told to every instance: each authenticator drops the key from its cache and
 * each live server ends the connections opened with it. The revoking process hears it first, before the
 * revocation is answered, so the very next request with the key is refused there; other instances hear
 * it through the bus, and an announcement the bus refuses (Redis away) is held and offered again.
 */
import { Topics, type EventBus } from '../bus';
import { listenLocalFirst, tellLocalListeners } from '../bus/localFirst';

/** What the bus carries about one revoked key. */
export interface DeveloperKeyRevoked {
  siteId: string;
  /** The DeveloperKey row's ID (Identity.developerKeyId of callers that used it). */
  keyId: string;
  /** SHA-256 of the key: what authenticators cache keys by. */
  keyHash: string;
}

/** Calls `listener` for every key revoked here (at once) or on another instance. */
export function onDeveloperKeyRevoked(bus: EventBus, listener: (revoked: DeveloperKeyRevoked) => void): () => void {
  return listenLocalFirst(bus, Topics.developerKeyRevoked, (message) => {
    const revoked = message as Partial<DeveloperKeyRevoked> | null;
    if (typeof revoked?.keyId === 'string' && typeof revoked.keyHash === 'string') listener(revoked as DeveloperKeyRevoked);
  });
}

/** Tells this process at once, then every instance through the bus's live-push path (held through a Redis blip). */
export function announceDeveloperKeyRevoked(bus: EventBus, revoked: DeveloperKeyRevoked): void {
  tellLocalListeners(bus, Topics.developerKeyRevoked, revoked);
  bus.announce(Topics.developerKeyRevoked, revoked.keyId, 'every', revoked);
}

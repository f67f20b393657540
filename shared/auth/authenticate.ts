/**
 * Turns the request headers of the seeds' Auth codes into an Identity, for the gateway (HTTP and
 * graphql-ws) and the REST bridge alike. A present but wrong credential is refused (401) rather than
 * ignored. Site and developer-key lookups are cached for a few seconds so the hot path stays in memory;
 * a revoked key leaves every instance's cache the moment the revocation reaches it (keyRevocations.ts),
 * so the TTL only bounds how long a key outlives a revocation the bus could not carry.
 */
import type { EventBus } from '../bus';
import type { Db } from '../db/client';
import { databaseUnavailable, isDatabaseUnavailable, unauthenticated } from '../errors';
import { newId } from '../ids';
import { hashToken, verifySession, type SessionClaims } from './credentials';
import { IDENTITY_HEADER, serviceIdentity, verifyIdentity, type Identity } from './identity';
import { onDeveloperKeyRevoked } from './keyRevocations';

export type HeaderBag = Record<string, string | string[] | undefined>;

export interface Authenticator {
  authenticate(headers: HeaderBag, requestId?: string): Promise<Identity>;
  /** The identity the service itself uses for internal reads on a site. */
  serviceIdentity(siteId: string): Identity;
}

/**
 * Values kept for `ttlMs`, each read once however many callers miss it at the same moment: a join storm
 * of thousands of viewers of one site asks the database once when the entry expires, not once per viewer.
 */
class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  /** Bumped by `drop`: a read that started before it does not put back what it dropped. */
  private generation = 0;
  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  async load(key: string, read: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expires >= Date.now()) return entry.value;
    let pending = this.loading.get(key);
    if (!pending) {
      const generation = this.generation;
      pending = read().then((value) => {
        if (generation !== this.generation) return value;
        if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value as string);
        this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
        return value;
      });
      const settled = () => {
        if (this.loading.get(key) === pending) this.loading.delete(key);
      };
      pending.then(settled, settled);
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Forgets `key` (and any read of it in flight): the next caller reads the database again. */
  drop(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
    this.loading.delete(key);
  }
}

/** How often a key's `lastUsedAt` may be written (the database's conditional update enforces it). */
const LAST_USED_EVERY_MS = 60_000;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first.trim();
}

/**
 * The authenticator of one instance. With `bus`, a developer key revoked anywhere leaves this instance's
 * cache as soon as the revocation arrives (the revoking process hears it before answering); otherwise a lookup
 * is kept `cacheTtlMs` (AUTH_CACHE_TTL_MS).
 */
export function createAuthenticator(db: Db, jwtSecret: string, internalSecret: string, bus: EventBus | undefined, cacheTtlMs: number): Authenticator {
  const sites = new TtlCache<boolean>(cacheTtlMs, 10_000);
  const keys = new TtlCache<{ siteId: string; keyId: string } | null>(cacheTtlMs, 10_000);
  /** When this instance last asked to write each key's lastUsedAt: most requests ask nothing of the database. */
  const touched = new Map<string, number>();
  if (bus) onDeveloperKeyRevoked(bus, (revoked) => keys.drop(revoked.keyHash));
  /**
   * Sign-in JWTs verified here, until they expire. A JWT is its own proof (nothing revokes it before its
   * `exp`), so the answer is the one verifying again would give; it spares the HMAC and JSON parsing of
   * the thousands of checks at a gated go-live, whose tokens the same viewers' page-open checks verified.
   */
  const sessions = new Map<string, { claims: SessionClaims; exp: number }>();
  function sessionOf(token: string): SessionClaims | null {
    const kept = sessions.get(token);
    if (kept && Math.floor(Date.now() / 1000) < kept.exp) return kept.claims;
    const verified = verifySession(token, jwtSecret);
    if (!verified) return null;
    if (verified.exp !== null) {
      // Full: start over rather than track recency; a miss costs one verification.
      if (sessions.size >= 50_000) sessions.clear();
      sessions.set(token, { claims: verified.claims, exp: verified.exp });
    }
    return verified.claims;
  }

  /** Database lookups; an unreachable database is SERVICE_UNAVAILABLE (503), not a refused caller. */
  async function lookup<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw isDatabaseUnavailable(error) ? databaseUnavailable() : error;
    }
  }

  function siteExists(siteId: string): Promise<boolean> {
    return sites.load(siteId, async () => (await lookup(() => db.site.findUnique({ where: { id: siteId }, select: { id: true } }))) !== null);
  }

  function developerKeyOf(key: string) {
    const keyHash = hashToken(key);
    return keys.load(keyHash, async () => {
      const row = await lookup(() => db.developerKey.findUnique({ where: { keyHash }, select: { id: true, siteId: true, revokedAt: true } }));
      return row && !row.revokedAt ? { siteId: row.siteId, keyId: row.id } : null;
    });
  }

  /**
   * Records that the key was used, at most once a minute per key: a conditional update (only when the
   * stored time is a minute old), not awaited, so the request never waits on it and instances racing
   * for the same minute write once.
   */
  function noteUse(keyId: string): void {
    const now = Date.now();
    if (now - (touched.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(keyId, now);
    const stale = new Date(now - LAST_USED_EVERY_MS);
    db.developerKey
      .updateMany({ where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] }, data: { lastUsedAt: new Date(now) } })
      .catch(() => touched.delete(keyId));
  }

  return {
    async authenticate(headers, requestId = newId()) {
      // A service of this deployment calling the gateway presents the identity it acts as, signed.
      const signed = verifyIdentity(header(headers, IDENTITY_HEADER), internalSecret);
      if (signed) return { ...signed, requestId: signed.requestId || requestId };
      const identity: Identity = { siteId: null, developerKey: false, account: null, requestId };
      const siteId = header(headers, 'x-service-client-id');
      if (siteId !== undefined) {
        if (siteId.length > 64 || !(await siteExists(siteId))) throw unauthenticated('unknown site (x-service-client-id)');
        identity.siteId = siteId;
      }
      const developerKey = header(headers, 'x-service-developer-key');
      if (developerKey !== undefined) {
        if (!identity.siteId) throw unauthenticated('x-service-developer-key needs x-service-client-id');
        const found = await developerKeyOf(developerKey);
        if (found?.siteId !== identity.siteId) throw unauthenticated('invalid developer key for this site');
        identity.developerKey = true;
        identity.developerKeyId = found.keyId;
        noteUse(found.keyId);
      }
      const authorization = header(headers, 'authorization');
      if (authorization !== undefined) {
        // Any Authorization here is a sign-in JWT: routes whose Bearer is a partner's token declare it as
        // their credential, and the REST bridge keeps that header from the identity (rest-bridge/router.ts).
        const match = /^Bearer\s+(\S+)$/i.exec(authorization);
        const claims = match ? sessionOf(match[1]) : null;
        if (!claims) throw unauthenticated('invalid or expired token (Authorization: Bearer <JWT>)');
        if (!identity.siteId) identity.siteId = claims.site;
        if (claims.site !== identity.siteId) throw unauthenticated('this token belongs to another site');
        identity.account = { id: claims.sub, roles: [...claims.roles] };
      }
      return identity;
    },
    serviceIdentity,
  };
}

/**
 * Turns the request headers of the seeds' Auth codes into an Identity, for the gateway (HTTP and
 * graphql-ws) and the REST bridge alike. A present but wrong credential is refused (401) rather than
 * ignored. Site and developer-key lookups are cached for a few seconds so the hot path stays in memory.
 */
import type { Db } from '../db/client';
import { databaseUnavailable, isDatabaseUnavailable, unauthenticated } from '../errors';
import { newId } from '../ids';
import { hashToken, verifySessionToken } from './credentials';
import { IDENTITY_HEADER, serviceIdentity, verifyIdentity, type Identity } from './identity';

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
  constructor(private readonly ttlMs: number, private readonly max: number) {}

  async load(key: string, read: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expires >= Date.now()) return entry.value;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = read().then((value) => {
        if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value as string);
        this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
        return value;
      });
      const settled = () => this.loading.delete(key);
      pending.then(settled, settled);
      this.loading.set(key, pending);
    }
    return pending;
  }
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first.trim();
}

export function createAuthenticator(db: Db, jwtSecret: string, internalSecret: string): Authenticator {
  const sites = new TtlCache<boolean>(5_000, 10_000);
  const keys = new TtlCache<string | null>(5_000, 10_000);

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

  async function siteOfDeveloperKey(key: string): Promise<string | null> {
    const keyHash = hashToken(key);
    return keys.load(keyHash, async () => {
      const row = await lookup(() => db.developerKey.findUnique({ where: { keyHash }, select: { siteId: true, revokedAt: true } }));
      return row && !row.revokedAt ? row.siteId : null;
    });
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
        if ((await siteOfDeveloperKey(developerKey)) !== identity.siteId) {
          throw unauthenticated('invalid developer key for this site');
        }
        identity.developerKey = true;
      }
      const authorization = header(headers, 'authorization');
      if (authorization !== undefined) {
        // Any Authorization here is a sign-in JWT: routes whose Bearer is a partner's token declare it as
        // their credential, and the REST bridge keeps that header from the identity (rest-bridge/router.ts).
        const match = /^Bearer\s+(\S+)$/i.exec(authorization);
        const claims = match ? verifySessionToken(match[1], jwtSecret) : null;
        if (!claims) throw unauthenticated('invalid or expired token (Authorization: Bearer <JWT>)');
        if (!identity.siteId) identity.siteId = claims.site;
        if (claims.site !== identity.siteId) throw unauthenticated('this token belongs to another site');
        identity.account = { id: claims.sub, roles: claims.roles };
      }
      return identity;
    },
    serviceIdentity,
  };
}

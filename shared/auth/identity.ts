/**
 * The caller's identity, built once by the gateway from the C / D / J headers and handed to subgraphs
 * in one signed header. Subgraphs trust only a header whose HMAC verifies with the internal secret, and
 * the gateway drops any such header a client sends, so a client cannot forge who it is.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { newId } from '../ids';

/**
 * One entry of an account's `roles`: `scope` names a permission (for example Overlays), `*` = all. A type
 * (not an interface), so a list of roles is a JSON value as it is written to Account.roles.
 */
export type AccountRole = {
  pageId: string[];
  scope: string;
  write: boolean;
};

export interface Identity {
  /** The site of `x-service-client-id`, verified to exist; null when the header was absent. */
  siteId: string | null;
  /** True when `x-service-developer-key` belongs to the site (or for the service's own calls). */
  developerKey: boolean;
  /** Which developer key (its row ID) the caller presented, so what it opened ends when that key is revoked. */
  developerKeyId?: string;
  /** The signed-in account of `Authorization: Bearer <JWT>`, bound to siteId. */
  account: { id: string; roles: AccountRole[] } | null;
  /** Correlates logs of one request across gateway and subgraphs. */
  requestId: string;
}

/** The identity the service itself acts as on one site's data (a developer key's rights, no account). */
export function serviceIdentity(siteId: string, requestId: string = newId()): Identity {
  return { siteId, developerKey: true, account: null, requestId };
}

export const IDENTITY_HEADER = 'x-stagegraph-identity';
const LIFETIME_MS = 60_000;

const mac = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export function signIdentity(identity: Identity, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ ...identity, exp: Date.now() + LIFETIME_MS })).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

/** The identity in a signed header, or null when the header is missing, altered or expired. */
export function verifyIdentity(header: string | undefined, secret: string): Identity | null {
  if (!header) return null;
  const dot = header.indexOf('.');
  if (dot <= 0) return null;
  const payload = header.slice(0, dot);
  const given = Buffer.from(header.slice(dot + 1));
  const expected = Buffer.from(mac(payload, secret));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const { exp, ...identity } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Identity & { exp: number };
  return exp >= Date.now() ? identity : null;
}

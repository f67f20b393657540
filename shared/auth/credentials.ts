/**
 * Credentials at rest and in flight: developer keys and partner tokens are random and stored as SHA-256
 * hashes; passwords use scrypt (node:crypto, OpenSSL) with a per-password salt; sign-in JWTs use the
 * jsonwebtoken library, HS256, short-lived and bound to one site.
 */
import { createHash, createSecretKey, randomBytes, scrypt as scryptCallback, timingSafeEqual, type KeyObject, type ScryptOptions } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AccountRole } from './identity';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newDeveloperKey(): string {
  return `sgk_${randomBytes(32).toString('base64url')}`;
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64 };

/** The cost of new hashes in this process (`PASSWORD_HASH_COST`); set once at start, as the metrics switch is. */
export function configurePasswordHashing(cost: number): void {
  SCRYPT.N = cost;
}

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses more than 32 MB unless told (N = 65536 at r = 8 is 64 MB).
  const maxmem = 256 * (options.N ?? SCRYPT.N) * (options.r ?? SCRYPT.r);
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keylen, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

export interface SessionClaims {
  /** Account ID. */
  sub: string;
  /** Site the token is valid on. */
  site: string;
  roles: AccountRole[];
}

/**
 * The HMAC key of a secret, made once. Given a string, jsonwebtoken first tries to parse it as a PEM
 * public key and catches the failure, on every call: 0.4 ms each, seconds of CPU when thousands of
 * signed-in viewers connect at once. Given a KeyObject it skips that.
 */
const hmacKeys = new Map<string, KeyObject>();
function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (!key) hmacKeys.set(secret, (key = createSecretKey(Buffer.from(secret))));
  return key;
}

export function signSessionToken(claims: SessionClaims, secret: string, ttlSeconds: number): string {
  return jwt.sign({ site: claims.site, roles: claims.roles }, hmacKey(secret), {
    algorithm: 'HS256',
    subject: claims.sub,
    expiresIn: ttlSeconds,
    issuer: 'stagegraph',
  });
}

/** An AccountRole as the access checks read it: a string scope; `write` a boolean and `pageId` strings when given. */
function isAccountRole(role: unknown): role is AccountRole {
  if (typeof role !== 'object' || role === null) return false;
  const { scope, write, pageId } = role as Record<string, unknown>;
  const pagesReadable = pageId === undefined || (Array.isArray(pageId) && pageId.every((page) => typeof page === 'string'));
  return typeof scope === 'string' && (write === undefined || typeof write === 'boolean') && pagesReadable;
}

/** The claims of a valid token, or null for a bad signature, wrong issuer or expired token. */
export function verifySessionToken(token: string, secret: string): SessionClaims | null {
  return verifySession(token, secret)?.claims ?? null;
}

/**
 * The claims of a valid token with its `exp` (Unix seconds; null when it has none): the token stays valid
 * while the clock's whole seconds are below it (jsonwebtoken's rule), so a verifier may keep the answer.
 */
export function verifySession(token: string, secret: string): { claims: SessionClaims; exp: number | null } | null {
  try {
    const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'], issuer: 'stagegraph' }) as jwt.JwtPayload;
    if (typeof payload.sub !== 'string' || typeof payload.site !== 'string') return null;
    const roles: unknown = payload.roles ?? [];
    // Signed by us, but still read, not trusted for its shape: roles the access checks cannot read make no session.
    if (!Array.isArray(roles) || !roles.every(isAccountRole)) return null;
    return { claims: { sub: payload.sub, site: payload.site, roles }, exp: typeof payload.exp === 'number' ? payload.exp : null };
  } catch {
    return null;
  }
}

/** A super API key: a JWT for platform-wide insights, identified by its jti so it can be revoked. */
export function signSuperApiKey(keyId: string, secret: string): string {
  return jwt.sign({ kind: 'super-api-key' }, hmacKey(secret), { algorithm: 'HS256', jwtid: keyId, issuer: 'stagegraph', subject: 'super' });
}

/** The key id of a valid super API key, or null. */
export function verifySuperApiKey(token: string, secret: string): string | null {
  try {
    const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'], issuer: 'stagegraph', subject: 'super' }) as jwt.JwtPayload;
    return payload.kind === 'super-api-key' && typeof payload.jti === 'string' ? payload.jti : null;
  } catch {
    return null;
  }
}

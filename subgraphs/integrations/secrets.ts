/**
 * Partner credentials: data provider secrets and streaming provider tokens are encrypted at rest
 * (AES-256-GCM, key derived from ENCRYPTION_KEY), signatures are HMAC-SHA256 in lowercase hex compared
 * in constant time, and Bearer tokens are found by their SHA-256 hash.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { unauthenticated } from '../../shared/errors';

const VERSION = 'v1';
const keys = new Map<string, Buffer>();

/** The 32-byte AES key of an ENCRYPTION_KEY (any length ≥ 32 characters), derived once. */
function aesKey(encryptionKey: string): Buffer {
  let key = keys.get(encryptionKey);
  if (!key) keys.set(encryptionKey, (key = createHash('sha256').update(encryptionKey).digest()));
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url): a fresh IV per value, authenticated by GCM's tag. */
export function encryptSecret(plain: string, encryptionKey: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(encryptionKey), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** The plain value of encryptSecret's output; throws when it was altered or the key differs. */
export function decryptSecret(stored: string, encryptionKey: string): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not an encrypted secret of this service');
  const decipher = createDecipheriv('aes-256-gcm', aesKey(encryptionKey), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A data provider's signing secret: 256 random bits. */
export function newDataProviderSecret(): string {
  return `dps_${randomBytes(32).toString('base64url')}`;
}

/** The X-DataProvider-Signature of a message: HMAC-SHA256 with the secret, lowercase hex. */
export function signMessage(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/**
 * Checks X-DataProvider-Signature over `message` (the exact body, or the provider ID) in constant time;
 * a missing or wrong signature is UNAUTHENTICATED.
 */
export function verifyProviderSignature(secret: string, message: string, signature: string | null | undefined): void {
  const given = signature?.trim();
  if (!given) throw unauthenticated('X-DataProvider-Signature header is required');
  const expected = Buffer.from(signMessage(secret, message), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw unauthenticated('X-DataProvider-Signature does not match (lowercase hex HMAC-SHA256 with the provider secret)');
  }
}

/** The token of an `Authorization: Bearer <token>` header; missing or malformed is UNAUTHENTICATED. */
export function bearerToken(header: string | null | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header?.trim() ?? '');
  if (!match) throw unauthenticated('Authorization: Bearer <authorization> header is required');
  return match[1];
}

/**
 * Secrets the service must read back later (a webhook endpoint's signing key) are stored sealed:
 * AES-256-GCM with a key derived from ENCRYPTION_KEY, a fresh nonce each time, and the tag that makes
 * any change to the stored value fail to open rather than yield another secret.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

const keyOf = (encryptionKey: string) => createHash('sha256').update(`stagegraph-sealed:${encryptionKey}`).digest();

/** `v1.<nonce>.<ciphertext>.<tag>` (base64url parts). */
export function sealSecret(secret: string, encryptionKey: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(encryptionKey), nonce);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, nonce, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The secret a `sealSecret` value holds; throws when the value was altered or sealed with another key. */
export function openSecret(sealed: string, encryptionKey: string): string {
  const [version, nonce, data, tag] = sealed.split('.');
  if (version !== VERSION || !nonce || data === undefined || !tag) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(encryptionKey), Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

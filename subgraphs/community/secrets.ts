/**
 * Secrets the community subgraph hands out (refresh, reset, intent and invite tokens): random, shown
 * once, stored as SHA-256 hashes. Secrets it must use again later (a site's DKIM private key) are
 * encrypted at rest with AES-256-GCM under ENCRYPTION_KEY.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { hashToken } from '../../shared/auth/credentials';

export { hashToken };

/** A new random token with a prefix that says what it is (`sgr_` refresh, `sgp_` reset, …). */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

const keyOf = (encryptionKey: string) => createHash('sha256').update(encryptionKey).digest();

/** AES-256-GCM under a key derived from ENCRYPTION_KEY: v1.<iv>.<tag>.<ciphertext>. */
export function encryptSecret(plain: string, encryptionKey: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(encryptionKey), iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
}

/** The plain text of encryptSecret; a changed or foreign value throws. */
export function decryptSecret(stored: string, encryptionKey: string): string {
  const [version, iv, tag, sealed] = stored.split('.');
  if (version !== 'v1' || !sealed) throw new Error('unknown secret format');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(encryptionKey), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * Human-readable codes (access codes, TV codes, receipt numbers) from characters that are hard to mix
 * up (no 0/O, 1/I). 32 characters, so each random byte gives one without bias.
 */
const READABLE = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** `count` random readable codes of `length` characters, from one random buffer. */
export function readableCodes(count: number, length: number): string[] {
  const bytes = randomBytes(count * length);
  const codes = new Array<string>(count);
  for (let index = 0; index < count; index += 1) {
    let code = '';
    for (let offset = index * length; offset < (index + 1) * length; offset += 1) code += READABLE[bytes[offset] & 31];
    codes[index] = code;
  }
  return codes;
}

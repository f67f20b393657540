/**
 * A site's developer keys (seed 001, Site Settings > Developer: "Generate API Key"): created with a name
 * and shown once, listed by prefix, revoked. A key is stored as its SHA-256 hash; its first characters
 * are kept so an admin can tell keys apart. Revoking is one conditional update (exactly once, whatever
 * races it) followed by an announcement every instance acts on (shared/auth/keyRevocations.ts).
 */
import { hashToken, newDeveloperKey } from '../../shared/auth/credentials';
import type { Db } from '../../shared/db/client';
import type { DeveloperKey } from '../../shared/db/generated/sqlite';
import { notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { checkText } from './validation';

/** Characters of a key kept in the clear: `sgk_` and 8 of its random part (48 of its 256 bits). */
const PREFIX_LENGTH = 12;

/** The part of a key listings show. */
export const keyPrefix = (key: string) => key.slice(0, PREFIX_LENGTH);

/** A new key's row and the key itself (the only time it exists outside the caller). */
export interface CreatedDeveloperKey {
  row: DeveloperKey;
  key: string;
}

/** Creates a key named `name` (1 to 200 characters, BAD_USER_INPUT naming `name` otherwise). */
export async function createDeveloperKey(db: Db, siteId: string, name: string): Promise<CreatedDeveloperKey> {
  const checked = checkText(name, 'name');
  const key = newDeveloperKey();
  const row = await db.developerKey.create({
    data: { id: newId(), siteId, name: checked, prefix: keyPrefix(key), keyHash: hashToken(key), createdAt: new Date() },
  });
  return { row, key };
}

/** The site's keys, newest first, revoked ones included. */
export function listDeveloperKeys(db: Db, siteId: string): Promise<DeveloperKey[]> {
  return db.developerKey.findMany({ where: { siteId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/**
 * Revokes key `id` of the site. `revoked` is the row when this call revoked it (the caller announces
 * it), null when it was revoked already; another site's key or an unknown ID is NOT_FOUND.
 */
export async function revokeDeveloperKey(db: Db, siteId: string, id: string): Promise<{ row: DeveloperKey; revoked: boolean }> {
  const changed = await db.developerKey.updateMany({ where: { id, siteId, revokedAt: null }, data: { revokedAt: new Date() } });
  const row = await db.developerKey.findFirst({ where: { id, siteId } });
  if (!row) throw notFound(`developer key ${id}`);
  return { row, revoked: changed.count === 1 };
}

/**
 * A site's trusted documents: the operations of a persisted query manifest in Apollo's format
 * (`{format: "apollo-persisted-query-manifest", version: 1, operations: [{id, name, type, body}]}`, as
 * @apollo/generate-persisted-query-manifest writes it). An id is the sha256 hex of its body, so a
 * registered document never changes: registering it again keeps it. The gateway looks them up by id
 * (gateway/trustedDocuments.ts); the CLI registers a manifest file with the same code.
 */
import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import type { Db } from '../../shared/db/client';
import { badInput } from '../../shared/errors';
import { isRecord } from './checks';

export const MANIFEST_FORMAT = 'apollo-persisted-query-manifest';
/** Operations one manifest may hold. */
export const MAX_MANIFEST_OPERATIONS = 1000;
const OPERATION_TYPES = new Set(['query', 'mutation', 'subscription']);

export interface TrustedOperation {
  id: string;
  name: string | null;
  type: string;
  body: string;
}

/** The sha256 hex of a document: its id in a manifest and in `extensions.persistedQuery.sha256Hash`. */
export function documentHash(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The manifest's operations, checked; BAD_USER_INPUT names the first wrong field (`operations[2].id`). */
export function checkManifest(manifest: unknown): TrustedOperation[] {
  if (!isRecord(manifest)) throw badInput('the manifest must be an object', 'manifest');
  if (manifest.format !== MANIFEST_FORMAT) throw badInput(`format must be "${MANIFEST_FORMAT}"`, 'format');
  if (manifest.version !== 1) throw badInput('version must be 1', 'version');
  const { operations } = manifest;
  if (!Array.isArray(operations) || operations.length === 0) throw badInput('operations must be a non-empty array', 'operations');
  if (operations.length > MAX_MANIFEST_OPERATIONS) throw badInput(`operations must hold at most ${MAX_MANIFEST_OPERATIONS} entries`, 'operations');
  return operations.map((entry: unknown, index) => {
    const at = `operations[${index}]`;
    if (!isRecord(entry)) throw badInput(`${at} must be an object`, at);
    const { id, name, type, body } = entry;
    if (typeof body !== 'string' || body.trim() === '') throw badInput(`${at}.body must be a GraphQL document`, `${at}.body`);
    if (typeof id !== 'string' || !/^[0-9a-f]{64}$/.test(id)) throw badInput(`${at}.id must be the sha256 hex of its body`, `${at}.id`);
    if (id !== documentHash(body)) throw badInput(`${at}.id is not the sha256 hex of its body`, `${at}.id`);
    if (typeof type !== 'string' || !OPERATION_TYPES.has(type)) throw badInput(`${at}.type must be query, mutation or subscription`, `${at}.type`);
    if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 200))
      throw badInput(`${at}.name must be a text of at most 200 characters`, `${at}.name`);
    try {
      parse(body);
    } catch (error) {
      throw badInput(`${at}.body is not a GraphQL document: ${(error as Error).message}`, `${at}.body`);
    }
    return { id, name: typeof name === 'string' ? name : null, type, body };
  });
}

/**
 * Stores the manifest's operations for `siteId` in one transaction, after every entry is checked (bad
 * input stores nothing). Returns how many it holds and how many the site did not have.
 */
export async function registerTrustedDocuments(db: Db, siteId: string, manifest: unknown): Promise<{ operations: number; added: number; ids: string[] }> {
  const operations = checkManifest(manifest);
  const ids = operations.map((operation) => operation.id);
  const unique = [...new Map(operations.map((operation) => [operation.id, operation])).values()];
  const added = await db.$transaction(async (tx) => {
    const known = new Set(
      (await tx.trustedDocument.findMany({ where: { siteId, hash: { in: unique.map((operation) => operation.id) } }, select: { hash: true } })).map(
        (row) => row.hash,
      ),
    );
    const fresh = unique.filter((operation) => !known.has(operation.id));
    for (const operation of fresh) {
      // The primary key (siteId, hash) makes a registration racing this one store each document once.
      await tx.trustedDocument.upsert({
        where: { siteId_hash: { siteId, hash: operation.id } },
        create: { siteId, hash: operation.id, name: operation.name, type: operation.type, body: operation.body },
        update: {},
      });
    }
    return fresh.length;
  });
  return { operations: operations.length, added, ids };
}

/**
 * Trusted documents at the edge of HTTP /graphql: a request may send only a registered operation's id
 * (`extensions.persistedQuery.sha256Hash`, as Apollo Client's persisted-queries link does, or
 * `documentId`), and a site with `trustedDocumentsOnly` runs nothing else for callers without a
 * developer key. The documents are the content subgraph's (subgraphs/content/trustedDocuments.ts); an
 * id is the sha256 of its body, so a document found once never changes and is kept here, while the
 * site's setting is kept until the site's content changes (every content mutation announces it).
 * The server's own documents (the REST bridge, live feeds, the embed's viewer channel over graphql-ws
 * and SSE) do not pass through here.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Authenticator } from '../shared/auth/authenticate';
import type { Identity } from '../shared/auth/identity';
import type { EventBus } from '../shared/bus';
import type { Db } from '../shared/db/client';
import { databaseUnavailable, ErrorCode, isDatabaseUnavailable } from '../shared/errors';
import { newId } from '../shared/ids';
import { followedSiteCache } from '../shared/viewerReads';

/** Documents kept in memory (immutable: an id is the hash of its body). */
const KEPT_DOCUMENTS = 5000;

/** Where the gateway finds a site's trusted documents and its setting. */
export interface TrustedDocumentStore {
  /** The body of `siteId`'s trusted document `id`, or null when the site has none by that id. */
  body(siteId: string, id: string): Promise<string | null>;
  /** Whether the site runs only its trusted documents for callers without a developer key. */
  onlyTrusted(siteId: string): Promise<boolean>;
  stop(): void;
}

/** The store over the database, with what it found kept in this instance. */
export function trustedDocumentStore(db: Db, bus: EventBus): TrustedDocumentStore {
  const documents = new Map<string, string>();
  const settings = followedSiteCache<boolean>(bus);
  return {
    async body(siteId, id) {
      const key = `${siteId}\n${id}`;
      const kept = documents.get(key);
      if (kept !== undefined) return kept;
      // Unknown ids are not remembered: a manifest registered on another instance is found at once.
      const row = id.length === 64 ? await db.trustedDocument.findUnique({ where: { siteId_hash: { siteId, hash: id } }, select: { body: true } }) : null;
      if (!row) return null;
      if (documents.size >= KEPT_DOCUMENTS) documents.delete(documents.keys().next().value as string);
      documents.set(key, row.body);
      return row.body;
    },
    onlyTrusted: (siteId) =>
      settings.cache.through(
        siteId,
        'trustedDocumentsOnly',
        async () => (await db.site.findUnique({ where: { id: siteId }, select: { trustedDocumentsOnly: true } }))?.trustedDocumentsOnly ?? false,
      ),
    stop: () => settings.stop(),
  };
}

/** The identity the trusted-documents step authenticated, for the GraphQL context (one authentication per request). */
export function authenticatedIdentity(locals: Record<string, unknown>): Identity | undefined {
  return locals.identity as Identity | undefined;
}

type Operation = { query?: unknown; documentId?: unknown; extensions?: { persistedQuery?: { sha256Hash?: unknown } } };

function sentId(operation: Operation): { id: string; documentId: boolean } | null {
  if (typeof operation.documentId === 'string') return { id: operation.documentId, documentId: true };
  const hash = operation.extensions?.persistedQuery?.sha256Hash;
  return typeof operation.query !== 'string' && typeof hash === 'string' ? { id: hash, documentId: false } : null;
}

const refusal = (message: string) => ({ errors: [{ message, extensions: { code: ErrorCode.PERSISTED_QUERY_NOT_FOUND } }] });

/**
 * Fills in the body of each operation sent by id, and refuses (400 PERSISTED_QUERY_NOT_FOUND) an id the
 * site has not registered when sent as `documentId` or to a trusted-documents-only site, and any other
 * document there from a caller without a developer key. A hash it does not know on other sites is left
 * to Apollo Server's automatic persisted queries, as before.
 */
export function trustedDocuments(store: TrustedDocumentStore, authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    let identity: Identity;
    try {
      identity = await authenticator.authenticate(req.headers, (req as { id?: string }).id ?? newId());
    } catch {
      // Apollo Server's context answers the credential problem (401) as it always has.
      next();
      return;
    }
    res.locals.identity = identity;
    const siteId = identity.siteId;
    if (!siteId) {
      next();
      return;
    }
    // A GET carries one operation in its query string; Apollo Client sends hashed operations by POST.
    const body = req.method === 'GET' ? [{ query: req.query.query }] : (req.body as unknown);
    const operations = (Array.isArray(body) ? body : [body]).filter((item): item is Operation => Boolean(item) && typeof item === 'object');
    try {
      const onlyTrusted = !identity.developerKey && (await store.onlyTrusted(siteId));
      for (const operation of operations) {
        const sent = sentId(operation);
        if (sent) {
          const found = await store.body(siteId, sent.id);
          if (found === null) {
            if (sent.documentId || onlyTrusted) {
              res.status(400).json(refusal(`no trusted document ${sent.id.slice(0, 80)} on this site (documentId / extensions.persistedQuery.sha256Hash)`));
              return;
            }
            continue;
          }
          operation.query = found;
          delete operation.documentId;
        } else if (onlyTrusted && typeof operation.query === 'string') {
          if ((await store.body(siteId, createHash('sha256').update(operation.query).digest('hex'))) === null) {
            res
              .status(400)
              .json(refusal('this site runs only its trusted documents: send a registered operation (POST /graphql/documents), or a developer key'));
            return;
          }
        }
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        res.status(503).json({ errors: [{ message: databaseUnavailable().message, extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } }] });
        return;
      }
      next(error);
      return;
    }
    next();
  };
}

/**
 * Pages (channels and landings): the stored document (active_renderers, renderers, seo, style, data,
 * metadata), the columns derived from it (name for search, external fields for configuration lookups,
 * a channel's sidebar panels as references, the gate password's hash), and the writes — create,
 * update, delete, clone — each of which reports a channel's change as an admin.channelUpdated webhook
 * in the same transaction.
 */
import { hashPassword } from '../../shared/auth/credentials';
import type { Db } from '../../shared/db/client';
import { startsWithText } from '../../shared/db/literalSearch';
import type { Page, Prisma } from '../../shared/db/generated/sqlite';
import { badInput, conflict } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { checkSiteId, checkTags, checkText, found, isRecord, type JsonRecord } from './checks';
import { searchFilter, searchKey } from './listing';
import { newPanelRow, writePanelReferences } from './panels';
import { referencesOfPage, replaceReferences } from './references';
import { checkScheduleData } from './schedule';
import { streamBinding, withoutStream } from './show/streamBinding';
import { enqueueChannelUpdated, type ChannelChange } from './webhooks';

/** GraphQL input names of the document's parts and their stored (legacy) keys. */
const PARTS = {
  activeRenderers: 'active_renderers',
  renderers: 'renderers',
  seo: 'seo',
  style: 'style',
  data: 'data',
  metadata: 'metadata',
} as const;
type PartName = keyof typeof PARTS;
export type PageParts = Partial<Record<PartName, unknown>>;

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;
const LANGUAGE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;
export const GATE_KINDS = ['none', 'password', 'login', 'subscription'] as const;
export type GateKind = (typeof GATE_KINDS)[number];
const EXTERNAL_FIELDS = [1, 2, 3, 4, 5].map((n) => `external_field_${n}`);

export function checkSlug(slug: string, field = 'slug'): string {
  if (!SLUG.test(slug)) throw badInput(`${field} must be 1 to 128 letters, digits, ., _, ~ or -, starting with a letter or digit`, field);
  return slug;
}

export function checkLanguage(language: string | null | undefined): string | undefined {
  if (language === undefined || language === null) return undefined;
  if (!LANGUAGE.test(language)) throw badInput('base_language must be a locale such as en-US', 'base_language');
  return language;
}

const objectOrAbsent = (value: unknown, field: string): JsonRecord | undefined => {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw badInput(`${field} must be an object`, field);
  return value;
};

function checkType(value: unknown, kind: 'string' | 'boolean' | 'number', field: string): void {
  if (value !== undefined && value !== null && typeof value !== kind) throw badInput(`${field} must be a ${kind}`, field);
}

function checkActiveRenderers(part: JsonRecord): void {
  checkType(part.livestream, 'boolean', 'active_renderers.livestream');
  checkType(part.sidebar, 'boolean', 'active_renderers.sidebar');
}

function checkRenderers(part: JsonRecord): void {
  const livestream = objectOrAbsent(part.livestream, 'renderers.livestream');
  if (livestream) {
    checkType(livestream.livestream_published, 'boolean', 'renderers.livestream.livestream_published');
    for (const key of ['video_id', 'stream_id', 'studio_session_id']) checkType(livestream[key], 'string', `renderers.livestream.${key}`);
  }
  const sidebar = objectOrAbsent(part.sidebar, 'renderers.sidebar');
  if (sidebar?.items !== undefined) {
    if (!Array.isArray(sidebar.items)) throw badInput('renderers.sidebar.items must be an array', 'renderers.sidebar.items');
    if (sidebar.items.length > 100) throw badInput('renderers.sidebar.items must have at most 100 panels', 'renderers.sidebar.items');
    sidebar.items.forEach((item, index) => {
      const field = `renderers.sidebar.items[${index}]`;
      if (!isRecord(item) || typeof item.id !== 'string' || !item.id) throw badInput(`${field}.id must be a panel ID`, `${field}.id`);
    });
  }
}

function checkSeo(part: JsonRecord): void {
  for (const key of ['title', 'description', 'image']) checkType(part[key], 'string', `seo.${key}`);
  const keywords = part.keywords;
  if (
    keywords !== undefined &&
    keywords !== null &&
    typeof keywords !== 'string' &&
    !(Array.isArray(keywords) && keywords.every((word) => typeof word === 'string'))
  ) {
    throw badInput('seo.keywords must be a string or an array of strings', 'seo.keywords');
  }
}

function checkGate(gate: JsonRecord): void {
  checkType(gate.active, 'boolean', 'data.gate.active');
  if (gate.kind !== undefined && gate.kind !== null && !(GATE_KINDS as readonly unknown[]).includes(gate.kind)) {
    throw badInput(`data.gate.kind must be one of ${GATE_KINDS.join(', ')}`, 'data.gate.kind');
  }
  if (gate.preview_seconds !== undefined && gate.preview_seconds !== null) {
    if (typeof gate.preview_seconds !== 'number' || !Number.isFinite(gate.preview_seconds) || gate.preview_seconds < 0) {
      throw badInput('data.gate.preview_seconds must be a number of seconds, at least 0', 'data.gate.preview_seconds');
    }
  }
  const inner = objectOrAbsent(gate.gate, 'data.gate.gate');
  if (!inner) return;
  checkType(inner.password, 'string', 'data.gate.gate.password');
  if (inner.subscriptions !== undefined && inner.subscriptions !== null) {
    if (!Array.isArray(inner.subscriptions)) throw badInput('data.gate.gate.subscriptions must be an array', 'data.gate.gate.subscriptions');
    inner.subscriptions.forEach((item, index) => {
      if (skuOf(item) === null)
        throw badInput(`data.gate.gate.subscriptions[${index}] must be a SKU or an object with a sku`, `data.gate.gate.subscriptions[${index}]`);
    });
  }
}

function checkData(part: JsonRecord): void {
  if (part.name !== undefined && part.name !== null) {
    if (typeof part.name !== 'string') throw badInput('data.name must be a string', 'data.name');
    if (part.name.length > 200) throw badInput('data.name must be at most 200 characters', 'data.name');
  }
  const gate = objectOrAbsent(part.gate, 'data.gate');
  if (gate) checkGate(gate);
  checkScheduleData(part);
}

function checkMetadata(part: JsonRecord): void {
  for (const [key, value] of Object.entries(part)) {
    if (!EXTERNAL_FIELDS.includes(key)) throw badInput(`metadata.${key} is not allowed (external_field_1 to external_field_5)`, `metadata.${key}`);
    if (value !== null && (typeof value !== 'string' || value.length > 200))
      throw badInput(`metadata.${key} must be a string of at most 200 characters`, `metadata.${key}`);
  }
}

const CHECKS: Record<PartName, (part: JsonRecord) => void> = {
  activeRenderers: checkActiveRenderers,
  renderers: checkRenderers,
  seo: checkSeo,
  style: () => undefined,
  data: checkData,
  metadata: checkMetadata,
};

/** A SKU named by a gate's subscriptions item: the SKU itself, or an entitlement object with one. */
export function skuOf(item: unknown): string | null {
  if (typeof item === 'string' && item) return item;
  if (isRecord(item) && typeof item.sku === 'string' && item.sku) return item.sku;
  return null;
}

/**
 * The document with the given parts over the current one (null removes a part), checked. A gate
 * password is taken out of the document: only its hash is kept, so no read ever returns it.
 */
export function buildDocument(current: JsonRecord, parts: PageParts): { document: JsonRecord; gatePassword: string | null } {
  const document: JsonRecord = structuredClone(current);
  for (const [name, key] of Object.entries(PARTS) as [PartName, string][]) {
    const value = parts[name];
    if (value === undefined) continue;
    if (value === null) {
      delete document[key];
      continue;
    }
    if (!isRecord(value)) throw badInput(`${key} must be an object`, key);
    CHECKS[name](value);
    document[key] = structuredClone(value);
  }
  let gatePassword: string | null = null;
  const gate = isRecord(document.data) && isRecord(document.data.gate) && isRecord(document.data.gate.gate) ? document.data.gate.gate : null;
  if (gate && typeof gate.password === 'string') {
    gatePassword = gate.password;
    delete gate.password;
  }
  if (JSON.stringify(document).length > 512 * 1024) throw badInput('the page document must be at most 512 KiB of JSON', 'data');
  return { document, gatePassword };
}

export interface Gate {
  kind: GateKind;
  requiredSkus: string[];
  previewSeconds: number;
}

/** The gate in force: an inactive gate, or none, is kind none. */
export function readGate(document: unknown): Gate {
  const data = isRecord(document) && isRecord(document.data) ? document.data : {};
  const gate = isRecord(data.gate) ? data.gate : {};
  const inner = isRecord(gate.gate) ? gate.gate : {};
  const kind = gate.active === true && (GATE_KINDS as readonly unknown[]).includes(gate.kind) ? (gate.kind as GateKind) : 'none';
  const requiredSkus = Array.isArray(inner.subscriptions) ? inner.subscriptions.map(skuOf).filter((sku): sku is string => sku !== null) : [];
  const previewSeconds = typeof gate.preview_seconds === 'number' ? gate.preview_seconds : 0;
  return { kind, requiredSkus, previewSeconds };
}

/** A stored part of the document (as the legacy key). */
export function pagePart(page: Page, name: PartName): unknown {
  return isRecord(page.document) ? (page.document[PARTS[name]] ?? null) : null;
}

function nameOf(document: JsonRecord): string {
  return isRecord(document.data) && typeof document.data.name === 'string' ? document.data.name : '';
}

function externalFieldsOf(document: JsonRecord): { field: number; value: string }[] {
  const metadata = isRecord(document.metadata) ? document.metadata : {};
  return EXTERNAL_FIELDS.flatMap((key, index) => {
    const value = metadata[key];
    return typeof value === 'string' && value ? [{ field: index + 1, value }] : [];
  });
}

/** The rows derived from a page's document: its external fields, and a channel's sidebar panels as references. */
async function writeDerivedRows(tx: Prisma.TransactionClient, page: Page): Promise<void> {
  await tx.pageExternalField.deleteMany({ where: { pageId: page.id } });
  const fields = externalFieldsOf(page.document as JsonRecord);
  if (fields.length) await tx.pageExternalField.createMany({ data: fields.map((field) => ({ pageId: page.id, siteId: page.siteId, ...field })) });
  await replaceReferences(
    tx,
    { siteId: page.siteId, collection: 'pages', id: page.id, name: page.name || page.slug },
    referencesOfPage(page.type, page.document),
  );
}

export async function findPage(db: Db, siteId: string, id: string): Promise<Page> {
  return found(await db.page.findFirst({ where: { id, siteId } }), `page ${id}`);
}

/** A password gate needs a password: given now, or kept from before. */
async function gatePasswordHash(document: JsonRecord, given: string | null, current: string | null): Promise<string | null> {
  if (given !== null) {
    if (!given) throw badInput('data.gate.gate.password must not be empty', 'data.gate.gate.password');
    return hashPassword(given);
  }
  const gate = isRecord(document.data) && isRecord(document.data.gate) ? document.data.gate : {};
  if (gate.active === true && gate.kind === 'password' && !current) {
    throw badInput('data.gate.gate.password is required for a password gate', 'data.gate.gate.password');
  }
  return current;
}

export interface PageCreate extends PageParts {
  slug: string;
  type: 'channel' | 'landing';
  baseLanguage?: string | null;
  tags?: string[] | null;
  siteId?: string | null;
}

type Writer = Prisma.TransactionClient;

/** Stores a page and its derived rows, and reports a new channel, in the caller's transaction. */
async function insertPage(tx: Writer, row: Omit<Prisma.PageUncheckedCreateInput, 'name' | 'searchName' | 'streamId'>, change: ChannelChange): Promise<Page> {
  const name = nameOf(row.document as JsonRecord);
  const streamId = await streamBinding(tx, row.siteId, row.document, null);
  const page = await tx.page.create({ data: { ...row, name, searchName: searchKey(name), streamId } });
  await writeDerivedRows(tx, page);
  await enqueueChannelUpdated(tx, page, change);
  return page;
}

/** Stores a new page; `alsoWrite` runs in its transaction (a template's panel copies), so both or neither are stored. */
export async function createPage(db: Db, siteId: string, input: PageCreate, alsoWrite?: (tx: Writer) => Promise<void>): Promise<Page> {
  checkSiteId(input.siteId, siteId, 'site_id');
  const { document, gatePassword } = buildDocument({}, input);
  const hash = await gatePasswordHash(document, gatePassword, null);
  const now = new Date();
  return db.$transaction(async (tx) => {
    await alsoWrite?.(tx);
    return insertPage(
      tx,
      {
        id: newId(),
        siteId,
        slug: checkSlug(input.slug),
        type: input.type,
        baseLanguage: checkLanguage(input.baseLanguage) ?? 'en-US',
        document: document as Prisma.InputJsonValue,
        tags: checkTags(input.tags),
        gatePasswordHash: hash,
        createdAt: now,
        updatedAt: now,
      },
      'created',
    );
  });
}

export interface PageChange extends PageParts {
  slug?: string | null;
  baseLanguage?: string | null;
  tags?: string[] | null;
}

export async function updatePage(db: Db, siteId: string, id: string, input: PageChange): Promise<Page> {
  const current = await findPage(db, siteId, id);
  const { document, gatePassword } = buildDocument(current.document as JsonRecord, input);
  const hash = await gatePasswordHash(document, gatePassword, current.gatePasswordHash);
  const name = nameOf(document);
  return db.$transaction(async (tx) => {
    const page = await tx.page.update({
      where: { id: current.id },
      data: {
        slug: input.slug === undefined || input.slug === null ? undefined : checkSlug(input.slug),
        baseLanguage: checkLanguage(input.baseLanguage),
        tags: input.tags ? checkTags(input.tags) : undefined,
        document: document as Prisma.InputJsonValue,
        name,
        searchName: searchKey(name),
        gatePasswordHash: hash,
        streamId: await streamBinding(tx, siteId, document, current.id),
        updatedAt: new Date(),
      },
    });
    await writeDerivedRows(tx, page);
    await enqueueChannelUpdated(tx, page, 'updated');
    return page;
  });
}

export async function deletePage(db: Db, siteId: string, id: string): Promise<Page> {
  const page = await findPage(db, siteId, id);
  await db.$transaction(async (tx) => {
    await tx.pageExternalField.deleteMany({ where: { pageId: page.id } });
    await tx.contentReference.deleteMany({ where: { sourceCollection: 'pages', sourceId: page.id } });
    await tx.channelPreview.deleteMany({ where: { siteId, pageId: page.id } });
    await tx.page.delete({ where: { id: page.id } });
    await enqueueChannelUpdated(tx, page, 'deleted');
  });
  return page;
}

/** `base`, or `base-2`, `base-3`, … : the first slug the site does not use yet. */
async function freeSlug(db: Db, siteId: string, base: string): Promise<string> {
  const taken = new Set((await db.page.findMany({ where: { siteId, slug: startsWithText(base) }, select: { slug: true } })).map((page) => page.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * A deep copy of a page with a new ID and slug: the document is copied, the sidebar's panels are
 * copied as new panels (renderers unchanged) and the copy's sidebar points at them. Metadata (the
 * site's external identifiers) stays with the original.
 */
export async function clonePage(db: Db, siteId: string, id: string, localizedTitle?: string | null, localizedSlug?: string | null): Promise<Page> {
  const base = await findPage(db, siteId, id);
  const title = localizedTitle === undefined || localizedTitle === null ? null : checkText(localizedTitle, 'localizedTitle', 200);
  let slug: string;
  if (localizedSlug !== undefined && localizedSlug !== null) {
    slug = checkSlug(localizedSlug, 'localizedSlug');
    if (await db.page.findFirst({ where: { siteId, slug }, select: { id: true } })) throw conflict(`a page with slug ${slug} already exists`);
  } else {
    slug = await freeSlug(db, siteId, `${base.slug}-copy`.slice(0, 120));
  }
  // One stream, one channel: the copy has no stream of its original.
  const document = withoutStream(structuredClone(base.document) as JsonRecord);
  delete document.metadata;
  if (title !== null) document.data = { ...(isRecord(document.data) ? document.data : {}), name: title };
  // A page stored before the schedule was checked is checked now rather than copied as it is.
  if (isRecord(document.data)) checkScheduleData(document.data);
  const sidebar = isRecord(document.renderers) && isRecord(document.renderers.sidebar) ? document.renderers.sidebar : null;
  const items = sidebar && Array.isArray(sidebar.items) ? (sidebar.items as JsonRecord[]) : [];
  const panelIds = items.map((item) => String(item.id));
  const panels = panelIds.length ? await db.panel.findMany({ where: { siteId, id: { in: panelIds } } }) : [];
  const now = new Date();

  return db.$transaction(async (tx) => {
    const copies = new Map<string, string>();
    for (const panel of panels) {
      const copy = await tx.panel.create({ data: newPanelRow(siteId, panel.renderer as JsonRecord, now) });
      await writePanelReferences(tx, copy);
      copies.set(panel.id, copy.id);
    }
    if (sidebar) sidebar.items = items.map((item) => ({ ...item, id: copies.get(String(item.id)) ?? item.id }));
    return insertPage(
      tx,
      {
        id: newId(),
        siteId,
        slug,
        type: base.type,
        baseLanguage: base.baseLanguage,
        document: document as Prisma.InputJsonValue,
        tags: base.tags as Prisma.InputJsonValue,
        gatePasswordHash: base.gatePasswordHash,
        createdAt: now,
        updatedAt: now,
      },
      'created',
    );
  });
}

const PAGE_SORT = { created: 'createdAt', modified: 'updatedAt', name: 'name', slug: 'slug' } as const;

export interface PageQuery {
  types?: readonly ('channel' | 'landing')[] | null;
  ids?: readonly string[] | null;
  search?: string | null;
  sortBy?: keyof typeof PAGE_SORT | null;
  sortDirection?: number | null;
}

/** The site's pages of the given types and IDs whose name holds `search` (any case); oldest first by default. */
export function listPages(db: Db, siteId: string, query: PageQuery) {
  if (query.ids && query.ids.length > 500) throw badInput('ids must name at most 500 pages', 'ids');
  const direction = query.sortDirection ?? 1;
  if (direction !== 1 && direction !== -1) throw badInput('sortDirection must be 1 (ascending) or -1 (descending)', 'sortDirection');
  const order = direction === 1 ? 'asc' : 'desc';
  return db.page.findMany({
    where: {
      siteId,
      ...(query.types ? { type: { in: [...query.types] } } : {}),
      ...(query.ids ? { id: { in: [...query.ids] } } : {}),
      ...searchFilter('searchName', query.search),
    },
    orderBy: [{ [PAGE_SORT[query.sortBy ?? 'created']]: order }, { id: order }],
  });
}

/**
 * Page configuration: what a player needs to draw a page — its sidebar panels (in order), the page,
 * an insights token, the site and the theme. Looked up by page ID or by one of the page's metadata
 * values (external_field_1..5), the site's own identifiers of its pages.
 */
import { createHmac } from 'node:crypto';
import type { Db } from '../../shared/db/client';
import type { Page, Site } from '../../shared/db/generated/sqlite';
import { badInput, notFound } from '../../shared/errors';
import { found, isRecord, type JsonRecord } from './checks';
import { channelTheme, siteTheme, type ThemeModel } from './theme';

const INSIGHTS_VERSION = '1';
const OBJECT_ID = /^[0-9a-f]{24}$/;

export interface PageConfigurationModel {
  panels: { id: string; slug: string; panelName: string; panelType: string; iconName: string | null; renderer: JsonRecord }[];
  page: { id: string; slug: string; type: 'channel' | 'landing'; name: string };
  insights: { id: string; version: string };
  site: Site;
  theme: ThemeModel;
}

/** The page a configuration lookup names: by ID (400 when it is not an ID), or by a metadata value. */
export async function findConfiguredPage(db: Db, siteId: string, pageId: string | null | undefined, metadata: string | null | undefined): Promise<Page> {
  if (pageId !== undefined && pageId !== null) {
    if (!OBJECT_ID.test(pageId)) throw badInput('pageId must be a page ID (24 hexadecimal characters)', 'pageId');
    return found(await db.page.findFirst({ where: { id: pageId, siteId } }), `page ${pageId}`);
  }
  const value = metadata?.trim();
  if (!value) throw badInput('metadata is required (a value of external_field_1 to external_field_5)', 'metadata');
  if (value.length > 200) throw badInput('metadata must be at most 200 characters', 'metadata');
  const match = await db.pageExternalField.findFirst({ where: { siteId, value }, orderBy: { field: 'asc' }, select: { pageId: true } });
  const page = match && (await db.page.findFirst({ where: { id: match.pageId, siteId } }));
  if (!page) throw notFound(`page with metadata ${value}`);
  return page;
}

/** Renderer fields a viewer never reads: the chat's word lists (filtered, held). */
const MODERATORS_ONLY = ['filtered_words', 'hold_words'];

/** A renderer as a viewer's page reads it. */
function viewerRenderer(renderer: JsonRecord): JsonRecord {
  return Object.fromEntries(Object.entries(renderer).filter(([key]) => !MODERATORS_ONLY.includes(key)));
}

/** An analytics token bound to the site and page, that clients cannot make up for other pages. */
function insightsToken(secret: string, page: Page): string {
  return createHmac('sha256', secret).update(`insights:${page.siteId}:${page.id}`).digest('base64url');
}

export async function pageConfiguration(db: Db, secret: string, page: Page): Promise<PageConfigurationModel> {
  const document = (isRecord(page.document) ? page.document : {}) as JsonRecord;
  const renderers = isRecord(document.renderers) ? document.renderers : {};
  const sidebar = isRecord(renderers.sidebar) ? renderers.sidebar : {};
  const ids = Array.isArray(sidebar.items) ? sidebar.items.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : [])) : [];
  const [rows, site] = await Promise.all([
    ids.length ? db.panel.findMany({ where: { siteId: page.siteId, id: { in: ids } } }) : [],
    db.site.findUniqueOrThrow({ where: { id: page.siteId } }),
  ]);
  const byId = new Map(rows.map((panel) => [panel.id, panel]));
  const panels = ids.flatMap((id) => {
    const panel = byId.get(id);
    if (!panel) return [];
    const renderer = isRecord(panel.renderer) ? panel.renderer : {};
    return [
      {
        id: panel.id,
        slug: panel.slug,
        panelName: panel.name,
        panelType: panel.type,
        iconName: typeof renderer.icon_name === 'string' ? renderer.icon_name : null,
        renderer: viewerRenderer(renderer),
      },
    ];
  });
  return {
    panels,
    page: { id: page.id, slug: page.slug, type: page.type as 'channel' | 'landing', name: page.name },
    insights: { id: insightsToken(secret, page), version: INSIGHTS_VERSION },
    site,
    theme: channelTheme(siteTheme(site.settings), document.data),
  };
}

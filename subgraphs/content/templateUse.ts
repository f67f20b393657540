/**
 * Channel templates put to use (seed 001: a template's `panels`, `rules` and `theme`). A template names
 * panels of the site by slug and automation rules by ID; both must exist when it is written (400 naming
 * the field). A channel created from a template starts with a copy of each panel (new IDs, in its sidebar,
 * in the template's order), a copy of each rule bound to the new channel (the overlays subgraph owns
 * rules: asked through the supergraph), and the template's theme. An archived template makes no channel
 * (409), and a template whose panel or rule went away since is refused (409 naming it) before anything is
 * written; a rule copy that fails after the channel was stored takes the channel and its panels back.
 */
import { GraphQLError } from 'graphql';
import { serviceIdentity } from '../../shared/auth/identity';
import type { Db } from '../../shared/db/client';
import type { ChannelTemplate, Page, Panel } from '../../shared/db/generated/sqlite';
import { badInput, conflict, ErrorCode } from '../../shared/errors';
import { stringList } from '../../shared/json';
import type { SubgraphContext } from '../../shared/subgraph';
import { isRecord, type JsonRecord } from './checks';
import { createPage, deletePage, type PageCreate } from './pages';
import { newPanelRow, writePanelReferences } from './panels';
import { findTemplate, templatePanels } from './templates';

const RULE = /* GraphQL */ `query TemplateRule($id: ID!) { automationRule(id: $id) { id } }`;
const BIND_RULES = /* GraphQL */ `mutation BindTemplateRules($ids: [ID!]!, $channelId: ID!) { bindAutomationRules(ids: $ids, channelId: $channelId) { id } }`;

type Asker = Pick<SubgraphContext, 'db' | 'supergraph'>;

/** Whether the site has the automation rule (the overlays subgraph's). */
async function ruleExists(ctx: Pick<SubgraphContext, 'supergraph'>, siteId: string, id: string): Promise<boolean> {
  try {
    const { automationRule } = await ctx.supergraph.execute<{ automationRule: { id: string } | null }>(RULE, { id }, serviceIdentity(siteId));
    return automationRule !== null;
  } catch (error) {
    if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) return false;
    throw error;
  }
}

/** The site's panels a template names, in its order; the index of the first one missing, if any. */
async function panelsNamed(db: Db, siteId: string, slugs: (string | null)[]): Promise<{ panels: Panel[]; missing: number | null }> {
  const named = slugs.filter((slug): slug is string => typeof slug === 'string');
  const rows = await db.panel.findMany({ where: { siteId, slug: { in: named } } });
  const bySlug = new Map(rows.map((panel) => [panel.slug, panel]));
  const missing = slugs.findIndex((slug) => slug === null || !bySlug.has(slug));
  return { panels: slugs.map((slug) => bySlug.get(slug as string) as Panel), missing: missing < 0 ? null : missing };
}

/** BAD_USER_INPUT naming the first panel or rule of a template being written that the site does not have. */
export async function checkTemplateReferences(ctx: Asker, siteId: string, fields: { panels: Record<string, unknown>[]; rules: string[] }): Promise<void> {
  const slugs = fields.panels.map((panel) => (typeof panel.slug === 'string' ? panel.slug : null));
  const { missing } = await panelsNamed(ctx.db, siteId, slugs);
  if (missing !== null) {
    const slug = slugs[missing];
    throw badInput(
      slug === null ? `panels[${missing}].slug is required` : `panels[${missing}].slug: no panel ${JSON.stringify(slug)} on this site`,
      `panels[${missing}].slug`,
    );
  }
  for (const [index, id] of fields.rules.entries()) {
    if (!(await ruleExists(ctx, siteId, id))) throw badInput(`rules[${index}]: no automation rule ${JSON.stringify(id)} on this site`, `rules[${index}]`);
  }
}

/** What a channel made from a template starts with, checked before anything is written. */
interface TemplateStart {
  template: ChannelTemplate;
  panels: Panel[];
  rules: string[];
}

/** The template, its panels and rules: NOT_FOUND, or CONFLICT when archived or when a panel or rule it names went away. */
async function templateStart(ctx: Asker, siteId: string, templateId: string): Promise<TemplateStart> {
  const template = await findTemplate(ctx.db, siteId, templateId);
  if (template.archived) throw conflict(`channel template ${templateId} is archived`);
  const slugs = templatePanels(template.panels).map((panel) => (typeof panel.slug === 'string' ? panel.slug : null));
  const { panels, missing } = await panelsNamed(ctx.db, siteId, slugs);
  if (missing !== null) throw conflict(`channel template ${templateId} names panel ${JSON.stringify(slugs[missing])}, which the site no longer has`);
  const rules = stringList(template.rules);
  for (const id of rules)
    if (!(await ruleExists(ctx, siteId, id))) throw conflict(`channel template ${templateId} names automation rule ${id}, which the site no longer has`);
  return { template, panels, rules };
}

/**
 * Creates a channel from a template: the template's panels copied in the channel's own transaction (in its
 * sidebar, after any the input names), its theme, then its rules bound to the channel. A rule binding that
 * fails takes the channel and its panel copies back.
 */
export async function createPageFromTemplate(ctx: Asker, siteId: string, input: PageCreate, templateId: string): Promise<Page> {
  const start = await templateStart(ctx, siteId, templateId);
  const rows = start.panels.map((panel) => newPanelRow(siteId, panel.renderer as JsonRecord));
  const page = await createPage(
    ctx.db,
    siteId,
    {
      ...input,
      ...withTemplate(
        input,
        start,
        rows.map((row) => row.id),
      ),
    },
    async (tx) => {
      for (const row of rows) await writePanelReferences(tx, await tx.panel.create({ data: row }));
    },
  );
  if (start.rules.length === 0) return page;
  try {
    await ctx.supergraph.execute(BIND_RULES, { ids: start.rules, channelId: page.id }, serviceIdentity(siteId));
  } catch (error) {
    await deletePage(ctx.db, siteId, page.id);
    await ctx.db.panel.deleteMany({ where: { siteId, id: { in: rows.map((row) => row.id) } } });
    throw error;
  }
  return page;
}

/** The page's parts with the template's panels in its sidebar (after any it names) and its theme. */
function withTemplate(parts: PageCreate, start: TemplateStart, panelIds: string[]) {
  const renderers = isRecord(parts.renderers) ? parts.renderers : {};
  const sidebar = isRecord(renderers.sidebar) ? renderers.sidebar : {};
  const items: unknown[] = Array.isArray(sidebar.items) ? (sidebar.items as unknown[]) : [];
  const data = isRecord(parts.data) ? parts.data : {};
  const theme = isRecord(data.theme) ? data.theme : {};
  const activeRenderers = isRecord(parts.activeRenderers) ? parts.activeRenderers : {};
  return {
    activeRenderers: panelIds.length > 0 ? { ...activeRenderers, sidebar: true } : parts.activeRenderers,
    renderers: { ...renderers, sidebar: { ...sidebar, items: [...items, ...panelIds.map((id) => ({ array_id: id, id }))] } },
    data: start.template.theme ? { ...data, theme: { ...theme, id: start.template.theme } } : parts.data,
  };
}

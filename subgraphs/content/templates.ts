/**
 * Channel templates: starting points for new channels (panels, automation rules, a theme). Titles
 * are at most 100 characters and descriptions 250 (seed 001); deleting archives.
 */
import type { Db } from '../../shared/db/client';
import type { ChannelTemplate } from '../../shared/db/generated/sqlite';
import { checkListSize, checkOptionalText, checkOptionalUrl, checkSiteId, checkText, found } from './checks';
import { searchKey } from './listing';
import type { ChannelTemplateInput, ChannelTemplatePanel } from './resolvers.generated';

export const TEMPLATE_TITLE_MAX = 100;
export const TEMPLATE_DESCRIPTION_MAX = 250;

/** The columns of a template from its input (create and replace take the same fields). */
export function templateFields(input: ChannelTemplateInput, siteId: string) {
  checkSiteId(input.siteId, siteId);
  const title = checkText(input.title, 'title', TEMPLATE_TITLE_MAX);
  const description = checkOptionalText(input.description, 'description', TEMPLATE_DESCRIPTION_MAX) ?? '';
  checkListSize(input.panels, 'panels', 100);
  checkListSize(input.rules, 'rules', 200);
  input.rules.forEach((rule, index) => checkText(rule, `rules[${index}]`, 64));
  input.panels.forEach((panel, index) => checkSiteId(panel.site_id, siteId, `panels[${index}].site_id`));
  const panels = input.panels.map((panel) => Object.fromEntries(Object.entries(panel).filter(([, value]) => value !== undefined && value !== null)));
  return {
    title,
    description,
    searchText: searchKey(title, description),
    icon: checkOptionalUrl(input.icon, 'icon'),
    panels,
    rules: input.rules.map((rule) => rule.trim()),
    theme: checkOptionalText(input.theme, 'theme', 100),
    creator: checkText(input.creator, 'creator', 64),
    owner: checkText(input.owner, 'owner', 64),
  };
}

export async function findTemplate(db: Db, siteId: string, id: string): Promise<ChannelTemplate> {
  return found(await db.channelTemplate.findFirst({ where: { id, siteId } }), `channel template ${id}`);
}

/** The panels a template brings, as stored. */
export function templatePanels(panels: unknown): ChannelTemplatePanel[] {
  return Array.isArray(panels) ? (panels as ChannelTemplatePanel[]) : [];
}

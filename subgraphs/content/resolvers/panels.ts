/** Resolvers of panels: reads (C), writes (D or a Panels role); a renderer is stored exactly as given. */
import { requireAdmin, requireReader } from '../../../shared/auth/access';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { badInput } from '../../../shared/errors';
import { checkSiteId, isRecord, type JsonRecord } from '../checks';
import { listQuery, type ListSpec } from '../listing';
import { checkRenderer, findPanel, mergePatch, newPanelRow, rendererColumns, writePanelReferences } from '../panels';
import type { Resolvers } from '../resolvers.generated';
import type { SubgraphContext } from '../../../shared/subgraph';
import { Scopes, timestamps } from '../scopes';

const PANEL_LIST: ListSpec<string> = {
  sort: { created: 'createdAt', modified: 'updatedAt', last_modified: 'updatedAt', slug: 'slug', type: 'type', panel_type: 'type', panel_name: 'name' },
  defaultSort: 'created',
  defaultDirection: -1,
  properties: {
    panel_type: { column: 'type', kind: 'text' },
    type: { column: 'type', kind: 'text' },
    panel_name: { column: 'name', kind: 'text' },
    slug: { column: 'slug', kind: 'text' },
  },
};

/** Stores a panel's new renderer (and what it points at), in one transaction. */
async function saveRenderer({ db }: SubgraphContext, id: string, renderer: JsonRecord) {
  return db.$transaction(async (tx) => {
    const panel = await tx.panel.update({
      where: { id },
      data: { renderer: renderer as Prisma.InputJsonValue, ...rendererColumns(renderer), updatedAt: new Date() },
    });
    await writePanelReferences(tx, panel);
    return panel;
  });
}

export const panelResolvers: Resolvers = {
  Query: {
    panels: async (_root, args, { identity, db }) => {
      const list = listQuery(args, PANEL_LIST);
      const where = { siteId: requireReader(identity), ...list.where };
      const [results, totalCount] = await db.$transaction([db.panel.findMany({ where, orderBy: list.orderBy, ...list.page }), db.panel.count({ where })]);
      return { pagination: list.paginate(results, totalCount), results };
    },
    panel: (_root, { id }, { identity, db }) => findPanel(db, requireReader(identity), id),
  },
  Mutation: {
    createPanel: (_root, { input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.panels, { write: true });
      checkSiteId(input.siteId, siteId);
      const renderer = checkRenderer(input.renderer);
      return db.$transaction(async (tx) => {
        const panel = await tx.panel.create({ data: newPanelRow(siteId, renderer) });
        await writePanelReferences(tx, panel);
        return panel;
      });
    },
    replacePanel: async (_root, { id, input }, ctx) => {
      const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
      checkSiteId(input.siteId, siteId);
      const current = await findPanel(ctx.db, siteId, id);
      return saveRenderer(ctx, current.id, checkRenderer(input.renderer));
    },
    updatePanel: async (_root, { id, renderer }, ctx) => {
      const siteId = requireAdmin(ctx.identity, Scopes.panels, { write: true });
      if (!isRecord(renderer)) throw badInput('renderer must be an object of the fields to change', 'renderer');
      const current = await findPanel(ctx.db, siteId, id);
      return saveRenderer(ctx, current.id, checkRenderer(mergePatch(current.renderer, renderer)));
    },
    deletePanel: async (_root, { id }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.panels, { write: true });
      const panel = await findPanel(db, siteId, id);
      // A Q&A room's questions and votes are reachable only through it: they go with it.
      await db.$transaction([
        db.contentReference.deleteMany({ where: { sourceCollection: 'panels', sourceId: panel.id } }),
        db.qaVote.deleteMany({ where: { siteId, panelId: panel.id } }),
        db.qaQuestion.deleteMany({ where: { siteId, panelId: panel.id } }),
        db.panel.delete({ where: { id: panel.id } }),
      ]);
      return { id: panel.id, success: true };
    },
  },
  Panel: {
    collection: () => 'panels',
    ...timestamps,
  },
};

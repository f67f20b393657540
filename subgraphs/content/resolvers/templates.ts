/** Resolvers of channel templates: read and write permission on ChannelTemplate (or a developer key). */
import { requireAdmin } from '../../../shared/auth/access';
import { newId } from '../../../shared/ids';
import { stringList } from '../../../shared/json';
import { listQuery, searchFilter, type ListSpec } from '../listing';
import type { Resolvers } from '../resolvers.generated';
import { findTemplate, templateFields, templatePanels } from '../templates';
import { checkTemplateReferences } from '../templateUse';
import { Scopes, timestamps } from '../scopes';

const TEMPLATE_LIST: ListSpec<string> = {
  sort: { modified: 'updatedAt', created: 'createdAt', title: 'title' },
  defaultSort: 'modified',
  defaultDirection: -1,
};

export const templateResolvers: Resolvers = {
  Query: {
    channelTemplates: async (_root, { search, ...args }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.channelTemplates, { write: false });
      const list = listQuery(args, TEMPLATE_LIST);
      const where = { siteId, archived: false, ...searchFilter('searchText', search) };
      const [templates, totalCount] = await db.$transaction([
        db.channelTemplate.findMany({ where, orderBy: list.orderBy, ...list.page }),
        db.channelTemplate.count({ where }),
      ]);
      return { templates, totalCount };
    },
    channelTemplate: (_root, { id }, { identity, db }) => findTemplate(db, requireAdmin(identity, Scopes.channelTemplates, { write: false }), id),
  },
  Mutation: {
    createChannelTemplate: async (_root, { input }, ctx) => {
      const { identity, db } = ctx;
      const siteId = requireAdmin(identity, Scopes.channelTemplates, { write: true });
      const fields = templateFields(input, siteId);
      await checkTemplateReferences(ctx, siteId, fields);
      const now = new Date();
      return db.channelTemplate.create({
        data: { ...fields, panels: fields.panels, id: newId(), siteId, createdAt: now, updatedAt: now },
      });
    },
    replaceChannelTemplate: async (_root, { id, input }, ctx) => {
      const { identity, db } = ctx;
      const siteId = requireAdmin(identity, Scopes.channelTemplates, { write: true });
      const current = await findTemplate(db, siteId, id);
      const fields = templateFields(input, siteId);
      await checkTemplateReferences(ctx, siteId, fields);
      return db.channelTemplate.update({ where: { id: current.id }, data: { ...fields, panels: fields.panels, updatedAt: new Date() } });
    },
    archiveChannelTemplate: async (_root, { id }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.channelTemplates, { write: true });
      const current = await findTemplate(db, siteId, id);
      if (!current.archived) await db.channelTemplate.update({ where: { id: current.id }, data: { archived: true, updatedAt: new Date() } });
      return true;
    },
  },
  ChannelTemplate: {
    panels: (template) => templatePanels(template.panels),
    rules: (template) => stringList(template.rules),
    ...timestamps,
  },
};

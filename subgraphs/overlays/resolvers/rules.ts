/**
 * Resolvers of automation rules (personalization): CRUD, the active rules of a data provider, and
 * running a fired rule's action. Every change tells the integrations subgraph's rule caches over the
 * event bus, so events are evaluated against what is stored without a query per event.
 */
import { GraphQLError } from 'graphql';
import { requireAdmin } from '../../../shared/auth/access';
import { Topics } from '../../../shared/bus';
import type { AutomationRule, Prisma } from '../../../shared/db/generated/sqlite';
import { badInput, ErrorCode, notFound } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { SubgraphContext } from '../../../shared/subgraph';
import { showOverlay } from '../broadcasts';
import type { Resolvers } from '../resolvers.generated';
import { byPriority, checkJsonRule, isKnownFact, ruleBroadcasts, type JsonRule } from '../rules';
import { checkName, checkOptionalId } from '../validation';
import { findOverlay } from './overlays';

const SCOPE = 'AutomationRules';

const DATA_PROVIDER_FACTS = /* GraphQL */ `query RuleDataProvider($id: ID!) { dataProvider(id: $id) { facts } }`;

async function findRule(ctx: SubgraphContext, siteId: string, id: string) {
  const rule = await ctx.db.automationRule.findFirst({ where: { id, siteId } });
  if (!rule) throw notFound(`automation rule ${id}`);
  return rule;
}

/** The rule checked against what it refers to: a data provider (and fact) and an overlay of the site. */
async function checkReferences(ctx: SubgraphContext, siteId: string, rule: JsonRule): Promise<void> {
  const { dataProviderId, fact } = rule.trigger;
  let facts: string[];
  try {
    const data = await ctx.supergraph.execute<{ dataProvider: { facts: string[] } }>(DATA_PROVIDER_FACTS, { id: dataProviderId }, ctx.identity);
    facts = data.dataProvider.facts;
  } catch (error) {
    if (error instanceof GraphQLError && error.extensions.code === ErrorCode.NOT_FOUND) {
      throw badInput(`jsonRule.trigger.dataProviderId names no data provider of this site`, 'jsonRule.trigger.dataProviderId');
    }
    throw error;
  }
  if (!isKnownFact(fact, facts)) {
    throw badInput(`jsonRule.trigger.fact must be one of the provider's facts: ${facts.join(', ')}`, 'jsonRule.trigger.fact');
  }
  const template = await ctx.db.overlay.findFirst({ where: { id: rule.action.templateId, siteId }, select: { id: true } });
  if (!template) throw badInput('jsonRule.action.templateId names no overlay of this site', 'jsonRule.action.templateId');
}

/** Drops the cached rules of these providers on every instance; a lost message only delays until the cache's own expiry. */
async function announceRuleChange(ctx: SubgraphContext, siteId: string, dataProviderIds: string[]): Promise<void> {
  try {
    await ctx.bus.publish(Topics.automationRulesChanged, { siteId, dataProviderIds: [...new Set(dataProviderIds)] });
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message }, 'could not announce an automation rule change');
  }
}

const payload = (rule: AutomationRule, message: string) => ({ id: rule.id, get: `/personalization/v1/${rule.id}`, message, rule });

/** `ids` as given: a list, or comma-separated in one or more entries. */
const splitIds = (ids: readonly string[]) => [
  ...new Set(
    ids
      .flatMap((entry) => entry.split(','))
      .map((id) => id.trim())
      .filter(Boolean),
  ),
];

async function deleteRules(ctx: SubgraphContext, siteId: string, ids: string[]) {
  const removed = await ctx.db.$transaction(async (tx) => {
    const rules = await tx.automationRule.findMany({ where: { siteId, id: { in: ids } }, select: { id: true, dataProviderId: true } });
    await tx.automationRule.deleteMany({ where: { siteId, id: { in: rules.map((rule) => rule.id) } } });
    return rules;
  });
  if (removed.length > 0)
    await announceRuleChange(
      ctx,
      siteId,
      removed.map((rule) => rule.dataProviderId),
    );
  return removed;
}

export const ruleResolvers: Resolvers = {
  Query: {
    automationRules: async (_root, { clientRule }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: false });
      const results = await ctx.db.automationRule.findMany({
        where: { siteId, ...(typeof clientRule === 'boolean' ? { clientRule } : {}) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return { results, totalCount: results.length, message: `${results.length} automation rule(s)` };
    },
    automationRule: (_root, { id }, ctx) => findRule(ctx, requireAdmin(ctx.identity, SCOPE, { write: false }), id),
    activeAutomationRules: (_root, { dataProviderId }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: false });
      return ctx.db.automationRule.findMany({ where: { siteId, dataProviderId, isActive: true }, orderBy: { createdAt: 'asc' } });
    },
  },
  Mutation: {
    createAutomationRule: async (_root, { input }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const channelId = checkOptionalId(input.channelId, 'channelId');
      const jsonRule = checkJsonRule(input.jsonRule, channelId);
      await checkReferences(ctx, siteId, jsonRule);
      const now = new Date();
      const rule = await ctx.db.automationRule.create({
        data: {
          id: newId(),
          siteId,
          name: checkName(input.name),
          dataProviderId: jsonRule.trigger.dataProviderId,
          jsonRule: jsonRule as unknown as Prisma.InputJsonValue,
          isActive: input.active ?? true,
          channelId,
          clientRule: input.clientRule ?? false,
          createdAt: now,
          updatedAt: now,
        },
      });
      await announceRuleChange(ctx, siteId, [rule.dataProviderId]);
      return payload(rule, 'automation rule created');
    },
    bindAutomationRules: async (_root, { ids, channelId }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const target = checkOptionalId(channelId, 'channelId') as string;
      const found = await ctx.db.automationRule.findMany({ where: { siteId, id: { in: ids } } });
      const byId = new Map(found.map((rule) => [rule.id, rule]));
      const missing = ids.find((id) => !byId.has(id));
      if (missing !== undefined) throw notFound(`automation rule ${missing}`);
      const now = new Date();
      const copies = ids.map((id, index) => {
        const rule = byId.get(id) as AutomationRule;
        const jsonRule = rule.jsonRule as unknown as JsonRule;
        const bound = {
          ...jsonRule,
          action: { ...jsonRule.action, targeting: { ...jsonRule.action.targeting, scope: 'specific_channels', target: [target] } },
        };
        return {
          id: newId(),
          siteId,
          name: rule.name,
          dataProviderId: rule.dataProviderId,
          jsonRule: bound as unknown as Prisma.InputJsonValue,
          isActive: rule.isActive,
          channelId: target,
          clientRule: rule.clientRule,
          // In the template's order, each its own millisecond (the newest wins a tie of priority).
          createdAt: new Date(now.getTime() + index),
          updatedAt: now,
        };
      });
      await ctx.db.automationRule.createMany({ data: copies });
      await announceRuleChange(ctx, siteId, [...new Set(copies.map((copy) => copy.dataProviderId))]);
      return ctx.db.automationRule.findMany({ where: { id: { in: copies.map((copy) => copy.id) } }, orderBy: { createdAt: 'asc' } });
    },
    updateAutomationRule: async (_root, { id, input }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const current = await findRule(ctx, siteId, id);
      const channelId = input.channelId === undefined ? current.channelId : checkOptionalId(input.channelId, 'channelId');
      const data: Prisma.AutomationRuleUpdateInput = { updatedAt: new Date(), channelId };
      // The stored rule is checked again too: a new channelId may be what specific_channels relied on.
      const given = input.jsonRule !== undefined && input.jsonRule !== null;
      const jsonRule = checkJsonRule(given ? input.jsonRule : current.jsonRule, channelId);
      if (given) {
        await checkReferences(ctx, siteId, jsonRule);
        data.jsonRule = jsonRule as unknown as Prisma.InputJsonValue;
        data.dataProviderId = jsonRule.trigger.dataProviderId;
      }
      if (input.name !== undefined && input.name !== null) data.name = checkName(input.name);
      if (input.active !== undefined && input.active !== null) data.isActive = input.active;
      if (input.clientRule !== undefined && input.clientRule !== null) data.clientRule = input.clientRule;
      const rule = await ctx.db.automationRule.update({ where: { id: current.id }, data });
      await announceRuleChange(ctx, siteId, [current.dataProviderId, rule.dataProviderId]);
      return payload(rule, 'automation rule updated');
    },
    deleteAutomationRule: async (_root, { id }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const removed = await deleteRules(ctx, siteId, [id]);
      if (removed.length === 0) throw notFound(`automation rule ${id}`);
      return { total: 1, removed: 1, message: 'automation rule removed' };
    },
    deleteAutomationRules: async (_root, { ids }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const wanted = splitIds(ids);
      if (wanted.length === 0) throw badInput('ids must name at least one rule', 'ids');
      const removed = await deleteRules(ctx, siteId, wanted);
      return { total: wanted.length, removed: removed.length, message: `removed ${removed.length} of ${wanted.length} automation rule(s)` };
    },
    runAutomationRule: async (_root, { id, event }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const rule = await findRule(ctx, siteId, id);
      if (!rule.isActive) return [];
      const jsonRule = rule.jsonRule as unknown as JsonRule;
      const overlay = await findOverlay(ctx.db, siteId, jsonRule.action.templateId);
      const targets = ruleBroadcasts(jsonRule, rule.channelId, event, overlay.duration);
      // The data event that fired the rule is accepted: its broadcasts are held through a Redis blip, never refused.
      return Promise.all(targets.map((target) => showOverlay(ctx, siteId, overlay, target, 'held')));
    },
    runAutomationRules: async (_root, { ids, event }, ctx) => {
      const siteId = requireAdmin(ctx.identity, SCOPE, { write: true });
      const rules = await ctx.db.automationRule.findMany({ where: { siteId, id: { in: [...new Set(ids)] }, isActive: true } });
      const ranked = await Promise.all(
        rules.map(async (rule) => {
          const jsonRule = rule.jsonRule as unknown as JsonRule;
          // A rule whose template is gone shows nothing; the other rules the event met still run.
          const overlay = await ctx.db.overlay.findFirst({ where: { id: jsonRule.action.templateId, siteId } });
          if (!overlay) ctx.logger.warn({ ruleId: rule.id, templateId: jsonRule.action.templateId }, 'automation rule template not found');
          const targets = overlay ? ruleBroadcasts(jsonRule, rule.channelId, event, overlay.duration).map((target) => ({ ...target, overlay })) : [];
          return { priority: jsonRule.action.targeting.priority ?? 0, createdAt: rule.createdAt.getTime(), targets };
        }),
      );
      // The data event that met the rules is accepted: its broadcasts are held through a Redis blip, never refused.
      return Promise.all(byPriority(ranked).map(({ overlay, ...target }) => showOverlay(ctx, siteId, overlay, target, 'held')));
    },
  },
  AutomationRule: {
    __resolveReference: (reference, { identity, db }) =>
      identity.siteId ? db.automationRule.findFirst({ where: { id: reference.id, siteId: identity.siteId } }) : null,
    dataSourceId: (rule) => rule.dataProviderId,
    jsonRule: (rule) => rule.jsonRule,
    created: (rule) => rule.createdAt.getTime(),
    modified: (rule) => rule.updatedAt.getTime(),
  },
};

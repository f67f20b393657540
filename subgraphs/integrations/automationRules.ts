/**
 * Automation rules as the ingestion path sees them. The overlays subgraph owns the rules; this keeps
 * each provider's active ones with compiled triggers, loaded once through the supergraph and dropped on
 * every instance when a rule changes (bus), so evaluating an event is in-memory comparisons only. A
 * rule whose trigger the event meets runs its action in the overlays subgraph, which checks again that
 * the rule is active: a rule switched off never fires, even from a cache that has not heard of it yet.
 */
import { serviceIdentity } from '../../shared/auth/identity';
import { valueAtPath } from '../../shared/json';
import type { Logger } from '../../shared/logger';
import type { SupergraphClient } from '../../shared/supergraph';
import { compileTrigger, type RuleTrigger } from '../overlays/triggers';
import { LoadCache } from './cache';

export interface CompiledRule {
  id: string;
  fact: string;
  fires(value: unknown): boolean;
}

const ACTIVE_RULES = /* GraphQL */ `
  query ActiveAutomationRules($dataProviderId: ID!) { activeAutomationRules(dataProviderId: $dataProviderId) { id jsonRule } }
`;
const RUN_RULES = /* GraphQL */ `
  mutation RunAutomationRules($ids: [ID!]!, $event: JSON!) { runAutomationRules(ids: $ids, event: $event) { broadcastId } }
`;

/** Active rules of each provider, compiled; kept for a minute at most, dropped sooner by the bus. */
export class RuleCache {
  private readonly cache = new LoadCache<CompiledRule[]>(60_000);

  constructor(private readonly supergraph: SupergraphClient) {}

  /** The active rules of a provider (of `siteId`), compiled. */
  of(siteId: string, dataProviderId: string): Promise<CompiledRule[]> {
    return this.cache.get(dataProviderId, () => this.load(siteId, dataProviderId));
  }

  drop(dataProviderId: string): void {
    this.cache.drop(dataProviderId);
  }

  private async load(siteId: string, dataProviderId: string): Promise<CompiledRule[]> {
    const data = await this.supergraph.execute<{ activeAutomationRules: { id: string; jsonRule: { trigger: RuleTrigger } }[] }>(
      ACTIVE_RULES,
      { dataProviderId },
      serviceIdentity(siteId),
    );
    return data.activeAutomationRules.map(({ id, jsonRule }) => ({ id, fact: jsonRule.trigger.fact, fires: compileTrigger(jsonRule.trigger) }));
  }
}

/** The rules whose trigger the event meets. */
export function rulesMetBy(rules: readonly CompiledRule[], event: unknown): CompiledRule[] {
  return rules.filter((rule) => rule.fires(valueAtPath(event, rule.fact)));
}

/**
 * Runs the actions of the given rules for an event of a site, together, so the overlays subgraph ranks
 * them by priority per channel. A failure is logged and not thrown: the event is stored already, and the
 * provider must not send it again because an overlay could not show.
 */
export async function runRules(supergraph: SupergraphClient, logger: Logger, siteId: string, rules: readonly CompiledRule[], event: unknown): Promise<void> {
  if (rules.length === 0) return;
  const ids = rules.map((rule) => rule.id);
  await supergraph.execute(RUN_RULES, { ids, event }, serviceIdentity(siteId)).catch((error: Error) => {
    logger.error({ err: error.message, ruleIds: ids }, 'automation rule actions failed');
  });
}

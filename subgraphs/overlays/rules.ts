/**
 * Automation rules: checking a jsonRule (every error names its field), and turning a rule plus the data
 * event that met its trigger into the broadcasts of its SEND_OVERLAY action.
 */
import { badInput } from '../../shared/errors';
import { valueAtPath } from '../../shared/json';
import type { BroadcastTarget } from './broadcasts';
import { TRIGGER_BEHAVIORS, TRIGGER_OPERATORS, type RuleTrigger, type TriggerValue } from './triggers';
import { checkDuration, checkVariables } from './validation';

export const ACTION_TYPES = ['SEND_OVERLAY'] as const;
export const TARGET_SCOPES = ['all_channels', 'specific_channels'] as const;
export const SEGMENTS = ['all_viewers', 'viewers_with_tags'] as const;

export interface RuleTargeting {
  scope: (typeof TARGET_SCOPES)[number];
  /** Channel IDs, for specific_channels. */
  target: string[];
  segment: (typeof SEGMENTS)[number];
  /** Account tags, for viewers_with_tags. */
  tags: string[];
  priority?: number;
}

export interface RuleAction {
  type: (typeof ACTION_TYPES)[number];
  targeting: RuleTargeting;
  /** The overlay broadcast when the rule fires. */
  templateId: string;
  /** Template variable name -> dotted path of the event value that fills it. */
  dataMap: Record<string, string>;
  /** What the broadcast call takes: duration (seconds), variables (constants), and anything else kept as given. */
  broadcastPayload: Record<string, unknown>;
}

export interface JsonRule {
  trigger: RuleTrigger;
  action: RuleAction;
}

type Json = Record<string, unknown>;

function objectAt(value: unknown, field: string): Json {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badInput(`${field} must be an object`, field);
  return value as Json;
}

function textAt(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badInput(`${field} must be a non-empty string`, field);
  return value.trim();
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw badInput(`${field} must be one of ${allowed.join(', ')}`, field);
  return value as T;
}

function textListAt(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badInput(`${field} must be an array of strings`, field);
  return value.map((item, index) => textAt(item, `${field}.${index}`));
}

const isScalar = (value: unknown) => typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

function triggerValueAt(value: unknown, field: string): TriggerValue {
  if (isScalar(value)) return value as TriggerValue;
  if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) return value as TriggerValue;
  throw badInput(`${field} must be a string, number, boolean or a non-empty list of them`, field);
}

function checkTrigger(value: unknown): RuleTrigger {
  const trigger = objectAt(value, 'jsonRule.trigger');
  return {
    dataProviderId: textAt(trigger.dataProviderId, 'jsonRule.trigger.dataProviderId'),
    fact: textAt(trigger.fact, 'jsonRule.trigger.fact'),
    operator: oneOf(trigger.operator, TRIGGER_OPERATORS, 'jsonRule.trigger.operator'),
    value: triggerValueAt(trigger.value, 'jsonRule.trigger.value'),
    behavior: oneOf(trigger.behavior ?? 'immediate', TRIGGER_BEHAVIORS, 'jsonRule.trigger.behavior'),
  };
}

function checkTargeting(value: unknown, channelId: string | null): RuleTargeting {
  const field = 'jsonRule.action.targeting';
  const targeting = objectAt(value, field);
  const scope = oneOf(targeting.scope ?? 'all_channels', TARGET_SCOPES, `${field}.scope`);
  const target = textListAt(targeting.target, `${field}.target`);
  if (scope === 'specific_channels' && target.length === 0 && !channelId) {
    throw badInput(`${field}.target must name at least one channel for specific_channels`, `${field}.target`);
  }
  const segment = oneOf(targeting.segment ?? 'all_viewers', SEGMENTS, `${field}.segment`);
  const tags = textListAt(targeting.tags, `${field}.tags`);
  if (segment === 'viewers_with_tags' && tags.length === 0) {
    throw badInput(`${field}.tags must name at least one tag for viewers_with_tags`, `${field}.tags`);
  }
  const checked: RuleTargeting = { scope, target, segment, tags };
  if (targeting.priority !== undefined && targeting.priority !== null) {
    if (typeof targeting.priority !== 'number' || !Number.isFinite(targeting.priority))
      throw badInput(`${field}.priority must be a number`, `${field}.priority`);
    checked.priority = targeting.priority;
  }
  return checked;
}

function checkDataMap(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  const map = objectAt(value, 'jsonRule.action.dataMap');
  return Object.fromEntries(Object.entries(map).map(([name, path]) => [name, textAt(path, `jsonRule.action.dataMap.${name}`)]));
}

function checkBroadcastPayload(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  const payload = objectAt(value, 'jsonRule.action.broadcastPayload');
  if (payload.duration !== undefined && payload.duration !== null) checkDuration(payload.duration as number, 'jsonRule.action.broadcastPayload.duration');
  try {
    checkVariables(payload.variables);
  } catch {
    throw badInput('jsonRule.action.broadcastPayload.variables must be an object of strings', 'jsonRule.action.broadcastPayload.variables');
  }
  return payload;
}

/**
 * A jsonRule as stored: the given rule with defaults written out (behavior immediate, all_viewers, empty
 * lists and maps). `channelId` is the rule's own channel, which specific_channels may target alone.
 */
export function checkJsonRule(value: unknown, channelId: string | null): JsonRule {
  const rule = objectAt(value, 'jsonRule');
  const action = objectAt(rule.action, 'jsonRule.action');
  return {
    trigger: checkTrigger(rule.trigger),
    action: {
      type: oneOf(action.type, ACTION_TYPES, 'jsonRule.action.type'),
      targeting: checkTargeting(action.targeting, channelId),
      templateId: textAt(action.templateId, 'jsonRule.action.templateId'),
      dataMap: checkDataMap(action.dataMap),
      broadcastPayload: checkBroadcastPayload(action.broadcastPayload),
    },
  };
}

/** Whether `fact` is one of a provider's facts or lies under one (a fact may name an object's member). */
export function isKnownFact(fact: string, facts: string[]): boolean {
  return facts.length === 0 || facts.some((known) => fact === known || fact.startsWith(`${known}.`));
}

/** A data event value as a template variable: text as is, numbers and booleans as text, objects as JSON. */
function variableText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/**
 * The broadcasts a fired rule makes: one per targeted channel (or one site-wide), for the tagged viewers
 * of its segment, with the payload's variables overlaid by the event's values named in dataMap.
 */
export function ruleBroadcasts(rule: JsonRule, ruleChannelId: string | null, event: unknown, defaultDuration: number): BroadcastTarget[] {
  const { targeting, dataMap, broadcastPayload } = rule.action;
  const variables = checkVariables(broadcastPayload.variables);
  for (const [name, path] of Object.entries(dataMap)) {
    const text = variableText(valueAtPath(event, path));
    if (text !== undefined) variables[name] = text;
  }
  const duration = typeof broadcastPayload.duration === 'number' ? broadcastPayload.duration : defaultDuration;
  const tags = targeting.segment === 'viewers_with_tags' ? targeting.tags : [];
  const channels: (string | null)[] =
    targeting.scope === 'all_channels' ? [null] : targeting.target.length > 0 ? [...new Set(targeting.target)] : [ruleChannelId];
  return channels.map((channelId) => ({ duration, channelId, tagId: null, tags, variables }));
}

/** A rule's broadcasts for one event, with what ranks it against the other rules the event met. */
export interface RankedBroadcasts<T extends Pick<BroadcastTarget, 'channelId'>> {
  priority: number;
  /** When the rule was created (Unix ms): the newest wins a tie. */
  createdAt: number;
  targets: T[];
}

/**
 * Of the broadcasts several rules want for one event, those that win by priority (seed 001's
 * `targeting.priority`): per channel, the highest priority, then the newest rule. A rule for every
 * channel (channelId null) reaches every channel, so it also wins over a rule for one channel that it
 * outranks or ties; a rule for one channel that outranks it still shows there too (the site-wide
 * broadcast cannot be withheld from one channel).
 */
export function byPriority<T extends Pick<BroadcastTarget, 'channelId'>>(ranked: readonly RankedBroadcasts<T>[]): T[] {
  const order = [...ranked].sort((a, b) => b.priority - a.priority || b.createdAt - a.createdAt);
  const taken = new Set<string | null>();
  let everyChannel = false;
  const winners: T[] = [];
  for (const rule of order) {
    for (const target of rule.targets) {
      if (taken.has(target.channelId)) continue;
      // Outranked (or tied by a newer rule) for every channel: this channel shows that rule's overlay.
      if (target.channelId !== null && everyChannel) continue;
      taken.add(target.channelId);
      if (target.channelId === null) everyChannel = true;
      winners.push(target);
    }
  }
  return winners;
}

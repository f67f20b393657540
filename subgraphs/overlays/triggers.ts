/**
 * The trigger of an automation rule: which data provider fact it watches and the test the fact's value
 * must pass. Pure code, shared by the rule validation here and the integrations subgraph, which
 * evaluates the triggers of cached rules on every accepted data event.
 */

export const TRIGGER_OPERATORS = [
  'equal',
  'not_equal',
  'greater_than',
  'greater_than_inclusive',
  'less_than',
  'less_than_inclusive',
  'in',
  'not_in',
  'contains',
] as const;
export type TriggerOperator = (typeof TRIGGER_OPERATORS)[number];

/** Only `immediate` exists: the action runs on the event that meets the trigger. */
export const TRIGGER_BEHAVIORS = ['immediate'] as const;

/** A scalar a trigger compares with; `in` / `not_in` take a list (or a comma-separated string). */
export type TriggerValue = string | number | boolean | (string | number | boolean)[];

export interface RuleTrigger {
  dataProviderId: string;
  /** Dotted path of a fact of the provider (data.score). */
  fact: string;
  operator: TriggerOperator;
  value: TriggerValue;
  behavior: (typeof TRIGGER_BEHAVIORS)[number];
}

/** The value as a number when it is one or reads as one ("12.5"), else null. */
function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/** A prepared operand: its number (when it reads as one) and its text, computed once per rule. */
interface Operand {
  number: number | null;
  text: string;
}

const operand = (value: unknown): Operand => ({ number: asNumber(value), text: asText(value) });

/** Numbers compare as numbers; anything else as text. */
function compare(fact: unknown, wanted: Operand): number {
  const number = asNumber(fact);
  if (number !== null && wanted.number !== null) return number - wanted.number;
  const text = asText(fact);
  return text < wanted.text ? -1 : text > wanted.text ? 1 : 0;
}

function listOf(value: TriggerValue): Operand[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((item) => item.trim()) : [value];
  return items.map(operand);
}

/**
 * Compiles a trigger into a test of a fact's value, so the per-event work is only the comparison. A
 * fact the event does not carry never meets a trigger.
 */
export function compileTrigger(trigger: Pick<RuleTrigger, 'operator' | 'value'>): (fact: unknown) => boolean {
  const wanted = operand(trigger.value);
  const present = (fact: unknown) => fact !== undefined && fact !== null;
  switch (trigger.operator) {
    case 'equal':
      return (fact) => present(fact) && compare(fact, wanted) === 0;
    case 'not_equal':
      return (fact) => present(fact) && compare(fact, wanted) !== 0;
    case 'greater_than':
      return (fact) => present(fact) && compare(fact, wanted) > 0;
    case 'greater_than_inclusive':
      return (fact) => present(fact) && compare(fact, wanted) >= 0;
    case 'less_than':
      return (fact) => present(fact) && compare(fact, wanted) < 0;
    case 'less_than_inclusive':
      return (fact) => present(fact) && compare(fact, wanted) <= 0;
    case 'in': {
      const list = listOf(trigger.value);
      return (fact) => present(fact) && list.some((item) => compare(fact, item) === 0);
    }
    case 'not_in': {
      const list = listOf(trigger.value);
      return (fact) => present(fact) && !list.some((item) => compare(fact, item) === 0);
    }
    case 'contains':
      return (fact) => {
        if (Array.isArray(fact)) return fact.some((item) => compare(item, wanted) === 0);
        return typeof fact === 'string' && fact.includes(wanted.text);
      };
  }
}

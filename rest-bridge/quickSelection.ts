/**
 * Picks from a quick answer (shared/quickAnswers.ts: a root field's value, field by field, named as the
 * schema names them) what a route's document selects, keyed as the document keys it (aliases), in the
 * document's order: the `data.result` executing the document would give. Only plain selections are
 * picked (fields, aliases, nested selections); a fragment, a directive or a field the answer lacks makes
 * the pick fail (undefined), and the route executes its operation instead.
 */
import { Kind, parse, type SelectionSetNode } from 'graphql';

/** The selection of the document's `result` field (the root field every route aliases so). */
export function resultSelection(document: string): SelectionSetNode | null {
  const operation = parse(document).definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return null;
  const root = operation.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD && selection.alias?.value === 'result');
  return root?.kind === Kind.FIELD && root.selectionSet ? root.selectionSet : null;
}

const MISSING = Symbol('missing');

function pick(value: unknown, selection: SelectionSetNode): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) {
    const items = value.map((item) => pick(item, selection));
    return items.includes(MISSING) ? MISSING : items;
  }
  if (typeof value !== 'object') return MISSING;
  const source = value as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const node of selection.selections) {
    if (node.kind !== Kind.FIELD || node.directives?.length || node.arguments?.length) return MISSING;
    const name = node.name.value;
    if (!(name in source) || source[name] === undefined) return MISSING;
    const child = node.selectionSet ? pick(source[name], node.selectionSet) : source[name];
    if (child === MISSING) return MISSING;
    picked[node.alias?.value ?? name] = child;
  }
  return picked;
}

/** What `selection` picks from `answer`, or undefined when it cannot be picked exactly. */
export function pickSelection(answer: Record<string, unknown>, selection: SelectionSetNode): unknown {
  const picked = pick(answer, selection);
  return picked === MISSING ? undefined : picked;
}

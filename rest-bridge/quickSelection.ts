/**
 * Writes from a quick answer (shared/quickAnswers.ts: a root field's value, field by field, named as the
 * schema names them) what a route's document selects, keyed as the document keys it (aliases), in the
 * document's order: the JSON text of the `data.result` executing the document would give. Only plain
 * selections are written (fields, aliases, nested selections); a fragment, a directive, an argument or a
 * field the answer lacks makes it fail (undefined), and the route executes its operation instead.
 */
import { Kind, parse, type SelectionSetNode } from 'graphql';
import { isUnchanging } from '../shared/quickAnswers';

/** The selection of the document's `result` field (the root field every route aliases so). */
export function resultSelection(document: string): SelectionSetNode | null {
  const operation = parse(document).definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return null;
  const root = operation.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD && selection.alias?.value === 'result');
  return root?.kind === Kind.FIELD && root.selectionSet ? root.selectionSet : null;
}

const MISSING = Symbol('missing');

/** The JSON text of unchanging parts (shared/quickAnswers.ts) per selection, kept while the part exists. */
const texts = new WeakMap<object, Map<SelectionSetNode, string>>();

/**
 * The JSON text of what `selection` picks from `answer`, character for character what `JSON.stringify`
 * gives for the executed operation's `result`, with the text of an unchanging part written once and reused (the channel and
 * its video at a go-live: most of each answer). Undefined when it cannot be picked exactly.
 */
export function selectionText(answer: Record<string, unknown>, selection: SelectionSetNode): string | undefined {
  const text = write(answer, selection);
  return text === MISSING ? undefined : text;
}

function write(value: unknown, selection: SelectionSetNode): string | typeof MISSING {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const text = write(item, selection);
      if (text === MISSING) return MISSING;
      items.push(text);
    }
    return `[${items.join(',')}]`;
  }
  if (typeof value !== 'object') return MISSING;
  const unchanging = isUnchanging(value);
  const known = unchanging ? texts.get(value)?.get(selection) : undefined;
  if (known !== undefined) return known;
  const source = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const node of selection.selections) {
    if (node.kind !== Kind.FIELD || node.directives?.length || node.arguments?.length) return MISSING;
    const name = node.name.value;
    if (!(name in source) || source[name] === undefined) return MISSING;
    const text = node.selectionSet ? write(source[name], node.selectionSet) : JSON.stringify(source[name]);
    if (text === MISSING) return MISSING;
    parts.push(`${JSON.stringify(node.alias?.value ?? name)}:${text}`);
  }
  const text = `{${parts.join(',')}}`;
  if (unchanging) {
    let bySelection = texts.get(value);
    if (!bySelection) texts.set(value, (bySelection = new Map<SelectionSetNode, string>()));
    bySelection.set(selection, text);
  }
  return text;
}

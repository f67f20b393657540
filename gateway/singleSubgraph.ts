/**
 * Which one subgraph answers a whole operation, read from the supergraph's join directives, so the live
 * server can send a viewer's query or mutation (the embed's `answerPoll`, thousands a second in a live
 * event) straight to that subgraph when it runs in this process — the REST bridge's `subgraph` shortcut,
 * decided from the document instead of declared per route. It is conservative: any field it is not sure
 * of (an entity crossing, an abstract type, @requires, @provides, @override, a field it cannot find)
 * leaves the operation to the gateway's query planner.
 */
import {
  buildASTSchema,
  getNamedType,
  getOperationAST,
  isObjectType,
  Kind,
  OperationTypeNode,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

const CACHE_LIMIT = 1000;
const CACHEABLE_LENGTH = 16 * 1024;

/** `{ graph: X }` arguments of one directive, by name, from a field or type definition's AST. */
function joinArguments(
  node:
    | { directives?: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; value: { kind: string; value?: unknown } }[] }[] }
    | undefined
    | null,
  directive: string,
) {
  return (node?.directives ?? [])
    .filter((applied) => applied.name.value === directive)
    .map((applied) => Object.fromEntries((applied.arguments ?? []).map((argument) => [argument.name.value, argument.value])));
}

export class SingleSubgraphPlanner {
  private readonly schema: GraphQLSchema;
  /** join__Graph enum value → subgraph name. */
  private readonly graphNames = new Map<string, string>();
  private readonly decisions = new Map<string, string | null>();

  constructor(supergraphSdl: string) {
    this.schema = buildASTSchema(parse(supergraphSdl), { assumeValidSDL: true });
    const graphs = this.schema.getType('join__Graph');
    for (const value of graphs && 'getValues' in graphs ? graphs.getValues() : []) {
      const [join] = joinArguments(value.astNode, 'join__graph');
      const name = join?.name as { value?: unknown } | undefined;
      if (typeof name?.value === 'string') this.graphNames.set(value.name, name.value);
    }
  }

  /** The subgraph that alone answers the operation, or null when the gateway must plan it. */
  subgraphOf(query: string, operationName: string | null | undefined): string | null {
    const key = `${operationName ?? ''}\u0000${query}`;
    const known = this.decisions.get(key);
    if (known !== undefined) return known;
    let decision: string | null = null;
    try {
      decision = this.decide(parse(query), operationName);
    } catch {
      decision = null;
    }
    if (key.length <= CACHEABLE_LENGTH) {
      if (this.decisions.size >= CACHE_LIMIT) this.decisions.delete(this.decisions.keys().next().value as string);
      this.decisions.set(key, decision);
    }
    return decision;
  }

  private decide(document: DocumentNode, operationName: string | null | undefined): string | null {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION) return null;
    const root = operation.operation === OperationTypeNode.MUTATION ? this.schema.getMutationType() : this.schema.getQueryType();
    if (!root) return null;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    const candidates = this.graphsOf(root, operation.selectionSet, fragments, new Set());
    if (!candidates || candidates.size === 0) return null;
    const [graph] = candidates;
    return this.graphNames.get(graph) ?? null;
  }

  /** The graphs that can resolve every field of the selection on `type`; null when unsure. */
  private graphsOf(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fragments: Map<string, FragmentDefinitionNode>,
    seen: Set<string>,
  ): Set<string> | null {
    let graphs: Set<string> | null = new Set(joinArguments(type.astNode, 'join__type').map((join) => String((join.graph as { value?: unknown })?.value)));
    const narrow = (to: Set<string> | null) => {
      graphs = to && graphs ? new Set([...graphs].filter((graph) => to.has(graph))) : null;
    };
    for (const selection of selectionSet.selections) {
      if (!graphs) return null;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__typename') continue;
        const field = type.getFields()[selection.name.value];
        if (!field) return null;
        const joins = joinArguments(field.astNode, 'join__field');
        if (joins.some((join) => Object.keys(join).some((name) => name !== 'graph' && name !== 'type'))) return null;
        if (joins.length > 0) narrow(new Set(joins.map((join) => String((join.graph as { value?: unknown })?.value))));
        const named = getNamedType(field.type);
        if (selection.selectionSet) {
          if (!isObjectType(named)) return null;
          narrow(this.graphsOf(named, selection.selectionSet, fragments, seen));
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && selection.typeCondition.name.value !== type.name) return null;
        narrow(this.graphsOf(type, selection.selectionSet, fragments, seen));
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || fragment.typeCondition.name.value !== type.name || seen.has(fragment.name.value)) return null;
        narrow(this.graphsOf(type, fragment.selectionSet, fragments, new Set([...seen, fragment.name.value])));
      }
    }
    return graphs;
  }
}

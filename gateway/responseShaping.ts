/**
 * The last step of every planned operation, made cheap: @apollo/gateway's `computeResponse` walks the merged
 * subgraph answers along the operation and copies each requested field into the answer, in the query's order,
 * checking every value against its type. Profiled under the bench's deep query (96 KB answered) it was the
 * largest single cost in one process (~20 % of the busy CPU): per field and per list element it looks up
 * @skip and @include on the selection, allocates a result object and an assertion message closure, and builds
 * the answer of null-prototype objects, which V8 keeps as dictionaries (slower to fill and about twice as
 * slow to JSON.stringify). And the operation it walks is rebuilt from the document for every request.
 *
 * Here, for the gateway this process runs:
 * - the operation @apollo/gateway rebuilds per request (`operationFromDocument(apiSchema, …, {validate:
 *   false})` in executeQueryPlan) is built once per parsed document (Apollo Server keeps each document's
 *   AST, so the same operation node comes back) and shared: execution only reads it;
 * - `computeResponse` reads what each selection set needs once (response name, conditions, the field's type
 *   unwrapped) and walks the data with that; the answer is made of plain objects, with the same keys in the
 *   same order, so it serializes to the same bytes.
 * Only answers that need no error take this path: anything irregular (a null where the type forbids one, a
 * value that does not fit its type, a missing or unknown __typename, introspection fields, a `__proto__`
 * alias) is computed again by @apollo/gateway's own code, on the same untouched input, so its data and
 * errors are exactly the gateway's.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kind, type DefinitionNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';

/** The parts of @apollo/federation-internals' schema and operation model read here. */
interface NamedType {
  kind: string;
  name: string;
}
interface WrapperType {
  kind: 'ListType' | 'NonNullType';
  ofType: FederationType;
}
type FederationType = NamedType | WrapperType;
interface Schema {
  type(name: string): NamedType | undefined;
  skipDirective(): unknown;
  includeDirective(): unknown;
}
interface Element {
  appliedDirectivesOf(definition: unknown): { arguments(): { if?: unknown } }[];
}
interface FieldElement extends Element {
  name: string;
  responseName(): string;
  definition: { type: FederationType; isSchemaIntrospectionField(): boolean };
}
interface FragmentElement extends Element {
  typeCondition?: NamedType;
}
interface SelectionSet {
  selections(): Selection[];
}
type Selection =
  | { kind: 'FieldSelection'; element: FieldElement; selectionSet?: SelectionSet }
  | { kind: 'FragmentSelection'; element: FragmentElement; selectionSet: SelectionSet };
interface Operation {
  schema(): Schema & { schemaDefinition: { rootType(kind: string): NamedType } };
  rootKind: string;
  selectionSet: SelectionSet;
  collectDefaultedVariableValues(): Record<string, unknown>;
}

interface ComputeResponseArguments {
  operation: Operation;
  variables?: Record<string, unknown>;
  input: Record<string, unknown> | null | undefined;
  introspectionHandling: unknown;
}
type ComputeResponse = (options: ComputeResponseArguments) => { data: unknown; errors: unknown[] };

interface FederationInternals {
  isSubtype(maybeSupertype: NamedType, maybeSubtype: NamedType): boolean;
  isValidLeafValue(schema: Schema, value: unknown, type: NamedType): boolean;
  isCustomScalarType(type: NamedType): boolean;
  isCompositeType(type: NamedType): boolean;
  isObjectType(type: NamedType): boolean;
  Variable: new (...args: never[]) => { name: string };
}

/**
 * Thrown for any answer this path will not give: @apollo/gateway's own code computes it instead. One instance,
 * made once: a throw costs no stack trace.
 */
const IRREGULAR = new Error('an answer for the gateway to shape');

/** A value's shape from its field's type: wrappers unwrapped once. */
type Shape =
  { kind: 'nonNull'; of: Shape } | { kind: 'list'; of: Shape } | { kind: 'composite'; type: NamedType } | { kind: 'leaf'; type: NamedType; accepts: Accepts };

/** Leaf values taken without asking isValidLeafValue (null: it is always asked). */
type Accepts = 'anything' | 'string' | 'boolean' | null;

/** `if` of an @skip or @include: a literal, or a variable's name. */
type Condition = { variable: string } | { literal: unknown };

interface FieldEntry {
  field: true;
  responseName: string;
  /** The name is a property of Object.prototype: read and written as an own property only. */
  inherited: boolean;
  typename: boolean;
  skip?: Condition;
  include?: Condition;
  shape: Shape;
  selectionSet?: SelectionSet;
  /** The entries of selectionSet, read at its first use. */
  entries?: Entry[] | null;
}
interface FragmentEntry {
  field: false;
  skip?: Condition;
  include?: Condition;
  typeCondition?: NamedType;
  selectionSet: SelectionSet;
  entries?: Entry[] | null;
}
type Entry = FieldEntry | FragmentEntry;

/** What one answer's walk shares. */
interface Walk {
  schema: Schema;
  variables: () => Record<string, unknown>;
}

const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

/** The computeResponse and operation cache of one copy of @apollo/federation-internals. */
function responseShaper(internals: FederationInternals, original: ComputeResponse): ComputeResponse {
  const compiled = new WeakMap<SelectionSet, Entry[] | null>();

  const shapeOf = (type: FederationType): Shape => {
    if (type.kind === 'NonNullType') return { kind: 'nonNull', of: shapeOf((type as WrapperType).ofType) };
    if (type.kind === 'ListType') return { kind: 'list', of: shapeOf((type as WrapperType).ofType) };
    const named = type as NamedType;
    return internals.isCompositeType(named) ? { kind: 'composite', type: named } : { kind: 'leaf', type: named, accepts: acceptsOf(named) };
  };

  /** What isValidLeafValue accepts of a leaf type without asking it: anything for a custom scalar, a string for String and ID, a boolean for Boolean. */
  const acceptsOf = (type: NamedType): Accepts => {
    if (internals.isCustomScalarType(type)) return 'anything';
    if (type.kind !== 'ScalarType') return null;
    return type.name === 'String' || type.name === 'ID' ? 'string' : type.name === 'Boolean' ? 'boolean' : null;
  };

  const conditionOf = (element: Element, directive: unknown): Condition | undefined => {
    const applied = element.appliedDirectivesOf(directive)[0];
    if (!applied) return undefined;
    const argument = applied.arguments().if;
    return argument instanceof internals.Variable ? { variable: argument.name } : { literal: argument };
  };

  /** A selection set's entries; null when some selection is one only the gateway's code answers. */
  const read = (selectionSet: SelectionSet, schema: Schema): Entry[] | null => {
    let entries: Entry[] | null = [];
    for (const selection of selectionSet.selections()) {
      const skip = conditionOf(selection.element, schema.skipDirective());
      const include = conditionOf(selection.element, schema.includeDirective());
      if (selection.kind === 'FragmentSelection') {
        entries.push({ field: false, skip, include, typeCondition: selection.element.typeCondition, selectionSet: selection.selectionSet });
        continue;
      }
      const field = selection.element;
      const responseName = field.responseName();
      if (field.definition.isSchemaIntrospectionField() || responseName === '__proto__') {
        entries = null;
        break;
      }
      entries.push({
        field: true,
        responseName,
        inherited: responseName in Object.prototype,
        typename: field.name === '__typename',
        skip,
        include,
        shape: shapeOf(field.definition.type),
        selectionSet: selection.selectionSet,
      });
    }
    return entries;
  };

  /** The entries of an operation's selection set, read once for the operation (kept, see keptOperations). */
  const entriesOf = (selectionSet: SelectionSet, schema: Schema): Entry[] | null => {
    let entries = compiled.get(selectionSet);
    if (entries === undefined) compiled.set(selectionSet, (entries = read(selectionSet, schema)));
    return entries;
  };

  const holds = (condition: Condition, walk: Walk): unknown => {
    if ('literal' in condition) return condition.literal;
    const value = walk.variables()[condition.variable];
    if (typeof value !== 'boolean') throw IRREGULAR;
    return value;
  };

  const skipped = (entry: Entry, walk: Walk) => Boolean((entry.skip && holds(entry.skip, walk)) || (entry.include && !holds(entry.include, walk)));

  /** Copies `selectionSet` of `input` into `output`, as applySelectionSet does when nothing is irregular. */
  const applySelectionSet = (input: Record<string, unknown>, entries: Entry[] | null, output: Record<string, unknown>, parentType: NamedType, walk: Walk) => {
    if (!entries) throw IRREGULAR;
    for (const entry of entries) {
      if ((entry.skip || entry.include) && skipped(entry, walk)) continue;
      if (!entry.field) {
        const typename = input.__typename;
        if (typename && typeof typename !== 'string') throw IRREGULAR;
        if (applies(entry.typeCondition, typename as string | undefined, parentType, walk.schema))
          applySelectionSet(input, (entry.entries ??= read(entry.selectionSet, walk.schema)), output, entry.typeCondition ?? parentType, walk);
        continue;
      }
      const { responseName } = entry;
      const outputValue = entry.inherited && !hasOwn(output, responseName) ? undefined : output[responseName];
      let inputValue = (entry.inherited && !hasOwn(input, responseName) ? undefined : input[responseName]) ?? null;
      if (entry.typename) {
        if (outputValue !== undefined) continue;
        if (inputValue === null && responseName !== '__typename') inputValue = input.__typename ?? null;
        const type = typeof inputValue === 'string' ? (walk.schema.type(inputValue) ?? parentType) : parentType;
        if (!internals.isObjectType(type)) throw IRREGULAR;
        output[responseName] = type.name;
        continue;
      }
      output[responseName] = updateOutputValue(outputValue, entry.shape, inputValue, entry, walk);
    }
  };

  const applies = (typeCondition: NamedType | undefined, typename: string | undefined, parentType: NamedType, schema: Schema) => {
    if (!typeCondition) return true;
    if (!typename) return internals.isSubtype(typeCondition, parentType);
    const type = schema.type(typename);
    return Boolean(type) && internals.isSubtype(typeCondition, type as NamedType);
  };

  /** A field's value in the answer, as updateOutputValue gives it when nothing is irregular. */
  const updateOutputValue = (outputValue: unknown, shape: Shape, inputValue: unknown, field: FieldEntry, walk: Walk): unknown => {
    if (inputValue === undefined) throw IRREGULAR;
    if (outputValue === null || (outputValue !== undefined && !field.selectionSet)) return outputValue;
    if (shape.kind === 'nonNull') {
      const updated = updateOutputValue(outputValue, shape.of, inputValue, field, walk);
      if (updated === null) throw IRREGULAR;
      return updated;
    }
    if (inputValue === null) return null;
    if (shape.kind === 'list') {
      if (!Array.isArray(inputValue) || (outputValue !== undefined && (!Array.isArray(outputValue) || outputValue.length !== inputValue.length)))
        throw IRREGULAR;
      const existing = outputValue as unknown[] | undefined;
      const updated: unknown[] = [];
      for (let index = 0; index < inputValue.length; index += 1) updated.push(updateOutputValue(existing?.[index], shape.of, inputValue[index], field, walk));
      return updated;
    }
    if (shape.kind === 'composite') {
      if (!field.selectionSet || typeof inputValue !== 'object' || (outputValue !== undefined && typeof outputValue !== 'object')) throw IRREGULAR;
      const typename = (inputValue as Record<string, unknown>).__typename;
      let type = shape.type;
      if (typename !== undefined) {
        if (typeof typename !== 'string') throw IRREGULAR;
        // An empty __typename is no type named, as the gateway's own code reads it.
        if (typename) {
          const named = walk.schema.type(typename);
          if (!named || !internals.isCompositeType(named)) throw IRREGULAR;
          type = named;
        }
      }
      const output = (outputValue ?? {}) as Record<string, unknown>;
      applySelectionSet(inputValue as Record<string, unknown>, (field.entries ??= read(field.selectionSet, walk.schema)), output, type, walk);
      return output;
    }
    if (outputValue !== undefined) throw IRREGULAR;
    if (shape.accepts !== 'anything' && typeof inputValue !== shape.accepts && !internals.isValidLeafValue(walk.schema, inputValue, shape.type))
      throw IRREGULAR;
    return inputValue;
  };

  return (options) => {
    const { operation, variables, input } = options;
    if (!input) return original(options);
    const schema = operation.schema();
    let all: Record<string, unknown> | undefined;
    const walk: Walk = { schema, variables: () => (all ??= { __proto__: null, ...operation.collectDefaultedVariableValues(), ...variables }) };
    const data: Record<string, unknown> = {};
    try {
      applySelectionSet(input, entriesOf(operation.selectionSet, schema), data, schema.schemaDefinition.rootType(operation.rootKind), walk);
    } catch (error) {
      if (error !== IRREGULAR) throw error;
      return original(options);
    }
    return { data, errors: [] };
  };
}

type OperationFromDocument = (schema: object, document: DocumentNode, options?: { operationName?: string; validate?: boolean }) => Operation;

/**
 * operationFromDocument that builds the operation executeQueryPlan asks for (its document: the request's
 * operation node and fragment nodes, unvalidated) once per operation node and schema. Any other call (the
 * query planner's) is passed on.
 */
function keptOperations(original: OperationFromDocument): OperationFromDocument {
  const kept = new WeakMap<OperationDefinitionNode, { schema: object; fragments: readonly DefinitionNode[]; operation: Operation }>();
  return (schema, document, options) => {
    const [first, ...fragments] = document.definitions;
    if (options?.validate !== false || options.operationName !== undefined || first?.kind !== Kind.OPERATION_DEFINITION)
      return original(schema, document, options);
    const entry = kept.get(first);
    if (
      entry &&
      entry.schema === schema &&
      entry.fragments.length === fragments.length &&
      entry.fragments.every((fragment, index) => fragment === fragments[index])
    )
      return entry.operation;
    const operation = original(schema, document, options);
    kept.set(first, { schema, fragments, operation });
    return operation;
  };
}

/**
 * The modules of the @apollo/gateway this process loads: its result shaping, and its own copy of
 * @apollo/federation-internals (not a dependency of this package: it comes with the gateway, in whatever
 * version the gateway needs). Loaded with this module's `require`, so they are the instances the gateway
 * itself uses.
 */
export function gatewayModules() {
  const gatewayIndex = require.resolve('@apollo/gateway');
  const internalsIndex = require.resolve('@apollo/federation-internals', { paths: [dirname(gatewayIndex)] });
  /* eslint-disable @typescript-eslint/no-require-imports -- the patched modules themselves, not their exports' copies */
  return {
    internals: require(internalsIndex) as FederationInternals & { operationFromDocument: OperationFromDocument },
    shaping: require(join(dirname(gatewayIndex), 'resultShaping')) as { computeResponse: ComputeResponse },
    operations: require(join(dirname(internalsIndex), 'operations')) as { operationFromDocument: OperationFromDocument },
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * The versions the replaced steps were proven on: the federation audit (`npm run audit:federation`) and the
 * byte-for-byte comparison with the stock path (test/gateway/stock-path.part.ts) ran against exactly these.
 * An upgrade runs the stock path until both are run again and these are moved.
 */
export const PROVEN_ON = { '@apollo/gateway': '2.14.4', '@apollo/federation-internals': '2.14.4' } as const;

/** The versions of @apollo/gateway and of its own @apollo/federation-internals that this process loads. */
export function loadedVersions(): Record<keyof typeof PROVEN_ON, string> {
  const gatewayIndex = require.resolve('@apollo/gateway');
  const internalsIndex = require.resolve('@apollo/federation-internals', { paths: [dirname(gatewayIndex)] });
  const versionBeside = (index: string) => (JSON.parse(readFileSync(join(dirname(index), '..', 'package.json'), 'utf8')) as { version: string }).version;
  return { '@apollo/gateway': versionBeside(gatewayIndex), '@apollo/federation-internals': versionBeside(internalsIndex) };
}

/** Whether the replaced steps run, and why not when they do not (for the start-up log). */
export type ShapingVerdict = { replaced: true } | { replaced: false; reason: string };

let verdict: ShapingVerdict | null = null;

/**
 * Puts the cheaper answer shaping and the kept operations into the @apollo/gateway this process runs (its own
 * copy of @apollo/federation-internals), only when both are the versions they were proven on and `stock` is not
 * asked for; otherwise the stock path runs. Decided once per process: later calls get the same verdict.
 */
export function shapeResponsesFaster(options: { stock?: boolean } = {}): ShapingVerdict {
  if (verdict) return verdict;
  const loaded = loadedVersions();
  const unproven = (Object.keys(PROVEN_ON) as (keyof typeof PROVEN_ON)[]).filter((name) => loaded[name] !== PROVEN_ON[name]);
  if (options.stock) verdict = { replaced: false, reason: 'the stock path was asked for (GATEWAY_STOCK=true or --stock)' };
  else if (unproven.length) {
    const names = unproven.map((name) => `${name} ${loaded[name]} (proven on ${PROVEN_ON[name]})`).join(', ');
    verdict = { replaced: false, reason: `not proven on ${names}` };
  } else {
    const { internals, shaping, operations } = gatewayModules();
    shaping.computeResponse = responseShaper(internals, shaping.computeResponse);
    operations.operationFromDocument = keptOperations(operations.operationFromDocument);
    verdict = { replaced: true };
  }
  return verdict;
}

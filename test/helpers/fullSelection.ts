/**
 * What a client generated from the schema asks and must be given: the full selection of a type (every
 * field, to a bounded depth; every member of a union or interface, each behind its own inline fragment),
 * and a check of an answer's data against the types of the selection it answers. Apollo Client and
 * graphql-codegen's clients select this way, so an answer that leaves a non-null field out, or gives a
 * value of another type, is an answer such a client cannot use, whatever our own pages select.
 */
import {
  getNamedType,
  getNullableType,
  isAbstractType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isScalarType,
  type DocumentNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type SelectionSetNode,
  Kind,
} from 'graphql';

/** How deep a selection goes below its root field: deep enough for every type of the live events. */
export const FULL_SELECTION_DEPTH = 6;

/** Fields that a full selection may ask: those with no required argument (a generated client cannot know a value). */
const selectable = (field: GraphQLField<unknown, unknown>) => field.args.every((argument) => !isRequiredArgument(argument));

/** The selection set (braces included) of every field of `type` to `depth` levels; '' for a leaf. */
export function fullSelectionOf(schema: GraphQLSchema, type: GraphQLOutputType, depth = FULL_SELECTION_DEPTH): string {
  const named = getNamedType(type) as GraphQLNamedType;
  if (isLeafType(named)) return '';
  if (isAbstractType(named)) {
    const members = schema.getPossibleTypes(named).map((member) => `... on ${member.name} ${fieldsOf(schema, member, depth)}`);
    return `{ __typename ${members.join(' ')} }`;
  }
  if (!isObjectType(named)) return '';
  return fieldsOf(schema, named, depth);
}

function fieldsOf(schema: GraphQLSchema, type: GraphQLNamedType, depth: number): string {
  if (!isObjectType(type)) return '';
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (!selectable(field)) continue;
    const leaf = isLeafType(getNamedType(field.type));
    if (leaf) parts.push(field.name);
    else if (depth > 1) parts.push(`${field.name} ${fullSelectionOf(schema, field.type, depth - 1)}`);
  }
  // An object whose fields all lie past the depth still answers its type name, as a generated client asks.
  return `{ ${parts.length > 0 ? parts.join(' ') : '__typename'} }`;
}

/**
 * An operation on one root field with its full selection: `subscription Walk($panelId: ID!) { chatMessages(panelId: $panelId) { … } }`.
 * Every argument of the field becomes a variable of its own type.
 */
export function fullOperation(
  schema: GraphQLSchema,
  operation: 'query' | 'mutation' | 'subscription',
  fieldName: string,
  depth = FULL_SELECTION_DEPTH,
): string {
  const root = schema.getRootType(operation as OperationTypeNode);
  const field = root?.getFields()[fieldName];
  if (!field) throw new Error(`${operation} has no field ${fieldName}`);
  const variables = field.args.map((argument) => `$${argument.name}: ${String(argument.type)}`);
  const argumentsText = field.args.map((argument) => `${argument.name}: $${argument.name}`);
  const head = variables.length > 0 ? `(${variables.join(', ')})` : '';
  const call = argumentsText.length > 0 ? `(${argumentsText.join(', ')})` : '';
  return `${operation} Full${fieldName[0].toUpperCase()}${fieldName.slice(1)}${head} { ${fieldName}${call} ${fullSelectionOf(schema, field.type, depth)} }`;
}

/**
 * Where `data` does not answer the operation of `document` by the schema's types: a field of the selection
 * missing, null where the type is non-null, a list that is not a list, a scalar or enum value of another
 * kind. An empty list when it answers. Subtrees under a path that `errors` name may be null (that is how
 * GraphQL reports a field error), so they are left out.
 */
export function problemsOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  data: unknown,
  errors: readonly { path?: readonly (string | number)[] }[] = [],
): string[] {
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation) return ['no operation in the document'];
  const root = schema.getRootType(operation.operation);
  if (!root) return [`no ${operation.operation} type`];
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  const errorPaths = errors.filter((error) => error.path).map((error) => error.path!.join('.'));
  const problems: string[] = [];
  if (data === null || typeof data !== 'object') {
    if (errorPaths.length === 0 && errors.length === 0) problems.push('data is not an object');
    return problems;
  }

  const underError = (path: string) =>
    errorPaths.some((errorPath) => errorPath === path || errorPath.startsWith(`${path}.`) || path.startsWith(`${errorPath}.`));

  const checkObject = (typeName: string, selection: SelectionSetNode, value: Record<string, unknown>, path: string) => {
    const type = schema.getType(typeName);
    if (!type || !isObjectType(type)) {
      problems.push(`${path}: ${typeName} is not an object type of the schema`);
      return;
    }
    for (const node of selection.selections) {
      if (node.kind === Kind.INLINE_FRAGMENT || node.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = node.kind === Kind.INLINE_FRAGMENT ? node : null;
        const set = node.kind === Kind.INLINE_FRAGMENT ? node.selectionSet : fragments.get(node.name.value);
        const condition = fragment ? fragment.typeCondition?.name.value : undefined;
        if (!set) continue;
        if (condition && condition !== typeName && !(isAbstractType(schema.getType(condition)!) && schema.isSubType(schema.getType(condition) as never, type)))
          continue;
        checkObject(typeName, set, value, path);
        continue;
      }
      const key = node.alias?.value ?? node.name.value;
      const at = path ? `${path}.${key}` : key;
      if (node.name.value === '__typename') {
        if (value[key] !== typeName) problems.push(`${at}: __typename ${JSON.stringify(value[key])}, expected ${typeName}`);
        continue;
      }
      const field = type.getFields()[node.name.value];
      if (!field) {
        problems.push(`${at}: ${typeName} has no field ${node.name.value}`);
        continue;
      }
      if (!(key in value)) {
        if (!underError(at)) problems.push(`${at}: missing`);
        continue;
      }
      checkValue(field.type, node.selectionSet, value[key], at);
    }
  };

  const checkValue = (type: GraphQLOutputType, selection: SelectionSetNode | undefined, value: unknown, path: string) => {
    if (value === null || value === undefined) {
      if (isNonNullType(type) && !underError(path)) problems.push(`${path}: null for non-null ${String(type)}`);
      return;
    }
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      if (!Array.isArray(value)) {
        problems.push(`${path}: not a list (${String(type)})`);
        return;
      }
      value.forEach((item, index) => checkValue(nullable.ofType, selection, item, `${path}.${index}`));
      return;
    }
    if (isScalarType(nullable)) {
      const ok = scalarFits(nullable.name, value);
      if (!ok) problems.push(`${path}: ${JSON.stringify(value)} is not a ${nullable.name}`);
      return;
    }
    if (isEnumType(nullable)) {
      if (typeof value !== 'string' || !nullable.getValue(value)) problems.push(`${path}: ${JSON.stringify(value)} is not a value of ${nullable.name}`);
      return;
    }
    if (typeof value !== 'object' || Array.isArray(value) || !selection) {
      problems.push(`${path}: not an object (${String(type)})`);
      return;
    }
    const record = value as Record<string, unknown>;
    let typeName = nullable.name;
    if (isAbstractType(nullable)) {
      if (typeof record.__typename !== 'string') {
        problems.push(`${path}: no __typename for the abstract ${nullable.name}`);
        return;
      }
      typeName = record.__typename;
      const member = schema.getType(typeName);
      if (!member || !isObjectType(member) || !schema.isSubType(nullable, member)) {
        problems.push(`${path}: ${typeName} is not a member of ${nullable.name}`);
        return;
      }
    }
    checkObject(typeName, selection, record, path);
  };

  checkObject(root.name, operation.selectionSet, data as Record<string, unknown>, '');
  return problems;
}

/** Whether a value is of a scalar's kind: the built-in scalars by their spec, a custom scalar (JSON) anything. */
function scalarFits(name: string, value: unknown): boolean {
  switch (name) {
    case 'Int':
      return Number.isInteger(value) && Math.abs(value as number) <= 2 ** 31;
    case 'Float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'String':
      return typeof value === 'string';
    case 'Boolean':
      return typeof value === 'boolean';
    case 'ID':
      return typeof value === 'string' || Number.isInteger(value);
    default:
      return true;
  }
}

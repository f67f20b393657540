/**
 * Update inputs take what is given, so their fields are nullable in GraphQL; but a field that creating the
 * same thing requires (non-null in the create input) must not be cleared with `null` on update either,
 * which the types cannot say. Derived from the schema once: each update input (`UpdateXInput`,
 * `XUpdateInput`) is paired with its create input (`CreateXInput`, `XInput`, `RegisterXInput`, or as
 * CREATED_BY says), and every
 * mutation that takes an update input refuses `null` for a field its create input requires, with
 * BAD_USER_INPUT naming the field, before its resolver runs.
 */
import { defaultFieldResolver, getNamedType, isInputObjectType, isNonNullType, type GraphQLInputObjectType, type GraphQLSchema } from 'graphql';
import { badInput } from './errors';

/** Create inputs named otherwise than their update input: an account is created by signing up. */
const CREATED_BY: Record<string, string> = { UpdateAccountInput: 'SignUpInput' };

/** The thing an input is about: `UpdateOverlayInput`, `CreateOverlayInput` → `OverlayInput`. */
const subjectOf = (name: string) => (CREATED_BY[name] ?? name).replace(/^(Create|Update|Register)|Update(?=Input$)/g, '');
const isUpdateInput = (name: string) => /^Update\w+Input$|\w+UpdateInput$/.test(name);

/** For each update input, the fields its create input requires. */
function requiredOnUpdate(schema: GraphQLSchema): Map<string, string[]> {
  const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
  const creates = new Map<string, GraphQLInputObjectType>();
  for (const input of inputs) if (!isUpdateInput(input.name)) creates.set(subjectOf(input.name), input);
  const required = new Map<string, string[]>();
  for (const update of inputs.filter((input) => isUpdateInput(input.name))) {
    const create = creates.get(subjectOf(update.name));
    if (!create) continue;
    const fields = Object.values(create.getFields())
      .filter((field) => isNonNullType(field.type) && update.getFields()[field.name])
      .map((field) => field.name);
    if (fields.length) required.set(update.name, fields);
  }
  return required;
}

/** Wraps the schema's mutations that take an update input with the null check; the schema is changed in place. */
export function refuseNullForRequiredUpdates(schema: GraphQLSchema): GraphQLSchema {
  const required = requiredOnUpdate(schema);
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const checks = field.args
      .map((arg) => [arg.name, required.get(getNamedType(arg.type).name)] as const)
      .filter((check): check is readonly [string, string[]] => check[1] !== undefined);
    if (checks.length === 0) continue;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args: Record<string, unknown>, context, info) => {
      for (const [argName, fields] of checks) {
        const input = args[argName] as Record<string, unknown> | null | undefined;
        const cleared = input ? fields.find((name) => input[name] === null) : undefined;
        if (cleared) throw badInput(`${cleared} must not be null (it is required; leave it out to keep the current value)`, cleared);
      }
      return resolve(source, args, context, info);
    };
  }
  return schema;
}

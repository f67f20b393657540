/**
 * The reaction fast path: a viewer's `sendChatReaction` on its socket, in its happy case, answered by the
 * live server without the executor (Apollo Server's pipeline, the gateway's plan, the subgraph's resolver
 * cost ~1.5 ms of CPU a reaction; the bench's 5,000 reactions/s in one room would need 7.5 cores).
 *
 * Only what can be answered exactly as the normal path answers is: a mutation whose one field is
 * `sendChatReaction(panelId, emoji)` (string literals or variables) selecting only `success`, `emoji` and
 * `__typename` (no aliases, fragments or directives), from a signed-in account of the site, to a room this
 * instance's chat feed has loaded, with one of its emoji, that the reaction limit allows. The limit and
 * the counter are the subgraph's own (shared/chatReactions.ts). Anything else, and any doubt, returns
 * false and the normal path runs: its answers and errors are the ones the API has always given. A
 * reaction the limit refused here is refused there too (the limit only counts further past its points),
 * with the same message and wait.
 */
import { getNamedType, Kind, OperationTypeNode, type OperationDefinitionNode, type GraphQLSchema, type ValueNode } from 'graphql';
import type { ChatReactions } from '../../shared/chatReactions';
import { recordLiveOperation } from '../../shared/metrics';
import type { Connection } from './groups';

const FIELD = 'sendChatReaction';
/** Fields of the receipt the fast path renders: `success` is always true, `emoji` the one counted. */
const RENDERED = new Set(['success', 'emoji', '__typename']);

/** Where an argument's value comes from: a variable of the request, or a string literal. */
type ArgumentSource = { variable: string } | { literal: string };

interface Shape {
  operationName: string | undefined;
  panelId: ArgumentSource;
  emoji: ArgumentSource;
  /** The selected fields, in selection order. */
  fields: string[];
}

/** The rooms whose reactions the fast path may trust: those the chat feed has loaded (gateway/live/feeds/chat.ts). */
export interface ReactionRooms {
  /** The room's emoji when this instance has it loaded, else null. */
  reactionsOf(siteId: string, panelId: string): readonly string[] | null;
}

function sourceOf(value: ValueNode | undefined): ArgumentSource | null {
  if (value?.kind === Kind.VARIABLE) return { variable: value.name.value };
  if (value?.kind === Kind.STRING) return { literal: value.value };
  return null;
}

/** The shape of an operation the fast path can answer, or null (answered by the normal path). */
export function reactionShape(operation: OperationDefinitionNode): Shape | null {
  if (operation.operation !== OperationTypeNode.MUTATION || operation.directives?.length || operation.selectionSet.selections.length !== 1) return null;
  const [field] = operation.selectionSet.selections;
  if (field.kind !== Kind.FIELD || field.name.value !== FIELD || field.alias || field.directives?.length || !field.selectionSet) return null;
  if (field.arguments?.length !== 2) return null;
  const argument = (name: string) => sourceOf(field.arguments?.find((node) => node.name.value === name)?.value);
  const panelId = argument('panelId');
  const emoji = argument('emoji');
  if (!panelId || !emoji) return null;
  const fields: string[] = [];
  for (const selection of field.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.alias || selection.directives?.length || selection.arguments?.length || selection.selectionSet) return null;
    const name = selection.name.value;
    if (!RENDERED.has(name) || fields.includes(name)) return null;
    fields.push(name);
  }
  return { operationName: operation.name?.value, panelId, emoji, fields };
}

function valueOf(source: ArgumentSource, variables: Record<string, unknown>): unknown {
  return 'literal' in source ? source.literal : variables[source.variable];
}

export class FastReactions {
  /** Reactions answered here (for tests and stats: proof the fast path was taken). */
  answered = 0;
  /** Shapes by operation (the live server caches prepared documents, bounded; these go with them). */
  private readonly shapes = new WeakMap<OperationDefinitionNode, Shape | null>();

  constructor(
    private readonly reactions: ChatReactions,
    private readonly rooms: ReactionRooms,
    private readonly schema: () => GraphQLSchema,
  ) {}

  /** Answers operation `id` when it is a reaction the fast path can answer exactly (true), else false and nothing is sent nor counted. */
  async answer(connection: Connection, id: string, operation: OperationDefinitionNode, variables: Record<string, unknown>): Promise<boolean> {
    const started = process.hrtime.bigint();
    let shape = this.shapes.get(operation);
    if (shape === undefined) this.shapes.set(operation, (shape = reactionShape(operation)));
    if (!shape) return false;
    const { siteId, account } = connection.identity;
    if (!siteId || !account) return false;
    const panelId = valueOf(shape.panelId, variables);
    const asked = valueOf(shape.emoji, variables);
    if (typeof panelId !== 'string' || typeof asked !== 'string') return false;
    const emoji = asked.trim();
    if (!this.rooms.reactionsOf(siteId, panelId)?.includes(emoji)) return false;
    let retryAfter: number | null;
    try {
      retryAfter = await this.reactions.spend(siteId, account.id);
    } catch {
      return false;
    }
    if (retryAfter !== null) return false;
    this.reactions.counter.add(siteId, panelId, emoji);
    this.answered += 1;
    const receipt: Record<string, unknown> = {};
    for (const name of shape.fields) receipt[name] = name === 'success' ? true : name === 'emoji' ? emoji : this.typename();
    if (connection.channel.open) connection.channel.result(id, { data: { [FIELD]: receipt } });
    recordLiveOperation(shape.operationName, started);
    return true;
  }

  private typename(): string {
    const field = this.schema().getMutationType()?.getFields()[FIELD];
    return field ? getNamedType(field.type).name : 'ChatReactionReceipt';
  }
}

/**
 * The reads whose answers the live feeds render as subscription events (chat rooms, the moderation queue,
 * poll results, a channel's status) select every field of every type they reach. The live server renders
 * an event by executing the viewer's selection on what the read gave, so a field the read leaves out is
 * missing from every push, and a non-null one fails the whole event for a viewer who selects it (a chat
 * viewer selecting `held` got no message at all). A field added to one of these types then fails here
 * until the read asks for it.
 */
import {
  getNamedType,
  isObjectType,
  isRequiredArgument,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  Kind,
  type SelectionSetNode,
  type GraphQLObjectType,
} from 'graphql';
import { composeSupergraph } from '../../gateway/compose';
import { CHANNEL_STATUS_OPERATIONS } from '../../gateway/live/feeds/channelStatus';
import { CHAT_MODERATION_OPERATIONS } from '../../gateway/live/feeds/chatModeration';
import { CHAT_OPERATIONS } from '../../gateway/live/feeds/chatSource';
import { POLL_RESULTS_OPERATIONS } from '../../gateway/live/feeds/pollResults';
import { QA_ROOM_OPERATIONS } from '../../gateway/live/feeds/qaRoom';

const { apiSchema } = composeSupergraph();

/** Fields a feed fills itself, per viewer, rather than from its shared read. */
const FILLED_BY_THE_FEED = new Set([
  // The viewer's own answer: pollAnswersOf, batched per account (gateway/live/feeds/pollResults.ts).
  'PollResults.mine',
  // Shared by every viewer of the room: each viewer's own votes are its query's (gateway/live/feeds/qaRoom.ts).
  'QaQuestion.votedByMe',
]);

/** Field names a selection set asks directly (through inline fragments too). */
function selected(selectionSet: SelectionSetNode): Set<string> {
  const names = new Set<string>();
  for (const node of selectionSet.selections) {
    if (node.kind === Kind.FIELD) names.add(node.name.value);
    else if (node.kind === Kind.INLINE_FRAGMENT) for (const name of selected(node.selectionSet)) names.add(name);
  }
  return names;
}

/** Each object type the document reaches, with the fields of it the document leaves out. */
function leftOut(source: string): string[] {
  const typeInfo = new TypeInfo(apiSchema);
  const missing: string[] = [];
  visit(
    parse(source),
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const type = getNamedType(typeInfo.getType());
        if (!node.selectionSet || !type || !isObjectType(type)) return;
        const asked = selected(node.selectionSet);
        const fields = Object.values((type as GraphQLObjectType).getFields()).filter((field) => field.args.every((argument) => !isRequiredArgument(argument)));
        for (const field of fields)
          if (!asked.has(field.name) && !FILLED_BY_THE_FEED.has(`${type.name}.${field.name}`)) missing.push(`${type.name}.${field.name}`);
      },
    }),
  );
  return missing;
}

it.each([
  ['chat rooms', CHAT_OPERATIONS],
  ['the chat moderation queue', CHAT_MODERATION_OPERATIONS],
  ['poll results', POLL_RESULTS_OPERATIONS],
  ['a Q&A room', QA_ROOM_OPERATIONS],
  ['a channel’s status', CHANNEL_STATUS_OPERATIONS],
])('the read behind the live events of %s selects every field of every type it reaches', (_name, operations) => {
  expect(operations.length).toBeGreaterThan(0);
  for (const operation of operations) {
    const name = operation.trim().split('\n')[0];
    expect({ name, leftOut: leftOut(operation) }).toEqual({ name, leftOut: [] });
  }
});

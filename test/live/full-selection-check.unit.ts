/**
 * The walks' own tools (test/helpers/fullSelection.ts) on a small schema: the full selection asks every
 * field and every member of a union, and the check finds each way an answer can fail its selection —
 * and accepts a field error's null where GraphQL puts it.
 */
import { buildSchema, parse } from 'graphql';
import { fullOperation, fullSelectionOf, problemsOf } from '../helpers/fullSelection';

const schema = buildSchema(/* GraphQL */ `
  scalar JSON
  enum Kind { SENT DELETED }
  type Author { id: ID! name: String }
  type Message { id: ID! seq: Int! held: Boolean! dueAt: Float author: Author! kind: Kind! extra: JSON history(limit: Int!): [Message!]! }
  type Notice { text: String! }
  union Item = Message | Notice
  type Event { messages: [Message!]! item: Item }
  type Query { ping: String }
  type Subscription { room(panelId: ID!, afterSeq: Int): Event! }
`);

const operation = fullOperation(schema, 'subscription', 'room');
const document = parse(operation);
const message = { id: 'm1', seq: 1, held: false, dueAt: null, author: { id: 'a1', name: null }, kind: 'SENT', extra: { any: 1 } };

it('asks every field without a required argument, every union member, and every argument as a variable', () => {
  expect(operation).toBe(
    'subscription FullRoom($panelId: ID!, $afterSeq: Int) { room(panelId: $panelId, afterSeq: $afterSeq) { messages { id seq held dueAt author { id name } kind extra } item { __typename ... on Message { id seq held dueAt author { id name } kind extra } ... on Notice { text } } } }',
  );
  expect(fullSelectionOf(schema, schema.getType('Author') as never, 1)).toBe('{ id name }');
});

it('accepts an answer that fits', () => {
  expect(problemsOf(schema, document, { room: { messages: [message], item: { __typename: 'Notice', text: 'hi' } } })).toEqual([]);
});

it('finds a missing field, a null non-null, a value of another type, an unknown member and a list that is not one', () => {
  const { held: _held, ...withoutHeld } = message;
  const answer = {
    room: {
      messages: [withoutHeld, { ...message, seq: 1.5, kind: 'LOST', author: null }],
      item: { __typename: 'Author', id: 'x' },
    },
  };
  expect(problemsOf(schema, document, answer)).toEqual([
    'room.messages.0.held: missing',
    'room.messages.1.seq: 1.5 is not a Int',
    'room.messages.1.author: null for non-null Author!',
    'room.messages.1.kind: "LOST" is not a value of Kind',
    'room.item: Author is not a member of Item',
  ]);
  expect(problemsOf(schema, document, { room: { messages: 'none', item: null } })).toEqual(['room.messages: not a list ([Message!]!)']);
});

it('leaves what lies under a field error to the error', () => {
  const errors = [{ path: ['room', 'messages', 0, 'held'] }];
  expect(problemsOf(schema, document, { room: { messages: [{ ...message, held: null }], item: null } }, errors)).toEqual([]);
  expect(problemsOf(schema, document, null, [{ path: ['room'] }])).toEqual([]);
});

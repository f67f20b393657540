/**
 * The REST bridge's writing of a quick answer (rest-bridge/quickSelection.ts): the text is what
 * JSON.stringify gives for the result executing the document would give — aliases, order, nesting, lists,
 * nulls, JSON values — whether an unchanging part's text is written anew or reused; and a selection it
 * cannot write exactly (a missing field, a fragment, a directive, an argument) is refused, so the route
 * executes instead.
 */
import { unchanging } from '../../shared/quickAnswers';
import { resultSelection, selectionText } from '../../rest-bridge/quickSelection';

const DOCUMENT = /* GraphQL */ `query Q($id: ID!) {
  result: thing(id: $id) { _id: id title tags parts { name: label at } meta owner { _id: id } none }
}`;

const selection = () => {
  const parsed = resultSelection(DOCUMENT);
  if (!parsed) throw new Error('no result selection');
  return parsed;
};

const owner = unchanging({ id: 'o1', name: 'not selected' });
const answer = {
  id: 't1',
  title: 'Quote " and \\ and \u2028',
  tags: ['a', 'b'],
  parts: [
    { label: 'one', at: 1.5, extra: true },
    { label: 'two', at: -0 },
  ],
  meta: { nested: { list: [1, null, 'x'] }, n: 1e21 },
  owner,
  none: null,
};
const executed = {
  _id: 't1',
  title: answer.title,
  tags: ['a', 'b'],
  parts: [
    { name: 'one', at: 1.5 },
    { name: 'two', at: -0 },
  ],
  meta: answer.meta,
  owner: { _id: 'o1' },
  none: null,
};

it('writes what JSON.stringify gives for the executed result, reusing an unchanging part’s text', () => {
  const first = selectionText(answer, selection());
  expect(first).toBe(JSON.stringify(executed));
  // The owner's text is kept now: a second answer holding the same object gives the same text.
  expect(selectionText({ ...answer, title: 'other' }, selection())).toBe(JSON.stringify({ ...executed, title: 'other' }));
});

it('refuses what it cannot write exactly', () => {
  const { title: _title, ...missing } = answer;
  expect(selectionText(missing, selection())).toBeUndefined();
  expect(selectionText({ ...answer, owner: 'not an object' }, selection())).toBeUndefined();
  for (const document of [
    `query { result: thing { ...F } } fragment F on Thing { id }`,
    `query { result: thing { id @include(if: true) } }`,
    `query { result: thing { title(lang: "en") } }`,
  ]) {
    const parsed = resultSelection(document);
    expect(parsed && selectionText(answer, parsed)).toBeFalsy();
  }
});

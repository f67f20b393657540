/**
 * What a viewer sees of a poll, in words (embed/pollDisplay.ts, the embed's wording in one place), for the
 * cases a browser test does not reach cheaply: a caller who may read the right answer early (an admin's
 * token), shares that do not add up to 100, the verdict of each kind of poll.
 */
import { pollDisplay } from '../../embed/pollDisplay';
import type { PollResults } from '../../shared/contracts/viewerProtocol';

const results = (fields: Partial<PollResults>): PollResults => ({
  pollId: 'p',
  type: 'trivia',
  question: 'Capital of France?',
  open: true,
  total: 3,
  answers: [
    { id: 'paris', text: 'Paris', count: 1 },
    { id: 'lyon', text: 'Lyon', count: 1 },
    { id: 'nice', text: 'Nice', count: 1 },
  ],
  correctAnswerId: null,
  mine: null,
  ...fields,
});
const viewer = { signedIn: true, mine: null, sending: false, failed: false };

it('reveals nothing while the poll is open, even to a caller the server told the right answer', () => {
  const shown = pollDisplay(results({ correctAnswerId: 'paris', mine: { answerId: 'lyon', correct: null } }), viewer);
  expect(shown).toMatchObject({ stage: 'answered', statusKind: 'answered', answerable: false });
  expect(shown.lines.map((line) => [line.correct, line.verdict, line.tag])).toEqual([
    [false, null, ''],
    [false, null, 'Your answer'],
    [false, null, ''],
  ]);
});

it('gives each answer its own rounded share (33 three times), and 0 when nobody answered', () => {
  expect(pollDisplay(results({}), viewer).lines.map((line) => line.share)).toEqual([33, 33, 33]);
  const none = results({ total: 0, answers: results({}).answers.map((answer) => ({ ...answer, count: 0 })) });
  expect(pollDisplay(none, viewer).lines.map((line) => line.share)).toEqual([0, 0, 0]);
});

it('says where the viewer stands at each stage, in words', () => {
  const closed = { open: false, correctAnswerId: 'paris' };
  expect(pollDisplay(results({}), { ...viewer, signedIn: false })).toMatchObject({ stage: 'open', status: 'Sign in to answer.', answerable: false });
  expect(pollDisplay(results({}), { ...viewer, sending: true })).toMatchObject({ status: 'Sending your answer…', answerable: true });
  expect(pollDisplay(results({}), { ...viewer, failed: true })).toMatchObject({ statusKind: 'failed', answerable: true });
  expect(pollDisplay(results({ type: 'poll' }), { ...viewer, mine: 'nice' })).toMatchObject({ status: 'Your vote is in.' });
  expect(pollDisplay(results({ type: 'prediction', open: false }), { ...viewer, mine: 'nice' })).toMatchObject({
    stage: 'waiting',
    status: 'Voting closed. Waiting for the result.',
  });
  expect(pollDisplay(results(closed), { ...viewer, mine: 'paris' })).toMatchObject({ stage: 'revealed', statusKind: 'right', status: 'You got it right!' });
  expect(pollDisplay(results(closed), { ...viewer, mine: 'nice' })).toMatchObject({
    statusKind: 'wrong',
    status: 'You got it wrong. The right answer is Paris.',
  });
  expect(pollDisplay(results(closed), { ...viewer, signedIn: false })).toMatchObject({
    statusKind: 'revealed',
    status: 'The right answer is Paris.',
    answerable: false,
  });
});

/**
 * Polls, predictions and trivia. Answers are ours to shape (the seed does not show them): { id, text,
 * imageUrl }. Trivia names its right answer when created; a prediction names it once the outcome is
 * known; a plain poll has none.
 */
import type { Db } from '../../../shared/db/client';
import type { Poll } from '../../../shared/db/generated/sqlite';
import { badInput } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { checkOptionalUrl, checkSiteId, checkText, found } from '../checks';
import { searchKey } from '../listing';
import type { PollAnswer, PollAnswerInput, PollType } from '../resolvers.generated';

export interface PollFieldsInput {
  type: PollType;
  name: string;
  question: string;
  answers?: readonly (PollAnswerInput | PollAnswer)[] | null;
  correctAnswerId?: string | null;
  open?: boolean | null;
  siteId?: string | null;
}

export function pollFields(input: PollFieldsInput, siteId: string) {
  checkSiteId(input.siteId, siteId);
  const name = checkText(input.name, 'name', 200);
  const question = checkText(input.question, 'question', 1000);
  // The seed's Poll has no answers: a poll without them is a legacy client's, and its right answer is taken as given.
  const given = input.answers ?? [];
  if (given.length === 1 || given.length > 50) throw badInput('answers must have 2 to 50 items', 'answers');
  const answers = given.map((answer, index) => ({
    id: answer.id ? checkText(answer.id, `answers[${index}].id`, 64) : newId(),
    text: checkText(answer.text, `answers[${index}].text`, 500),
    imageUrl: checkOptionalUrl(answer.imageUrl, `answers[${index}].imageUrl`),
  }));
  if (new Set(answers.map((answer) => answer.id)).size !== answers.length) throw badInput('answers must have distinct ids', 'answers');
  const correctAnswerId = input.correctAnswerId ? checkText(input.correctAnswerId, 'correctAnswerId', 64) : null;
  if (answers.length > 0) {
    if (correctAnswerId !== null && !answers.some((answer) => answer.id === correctAnswerId)) {
      throw badInput('correctAnswerId must be the id of one of the answers', 'correctAnswerId');
    }
    if (input.type === 'trivia' && correctAnswerId === null) throw badInput('correctAnswerId is required for trivia', 'correctAnswerId');
    if (input.type === 'poll' && correctAnswerId !== null) throw badInput('correctAnswerId is only for trivia and predictions', 'correctAnswerId');
  }
  return { type: input.type, name, question, searchText: searchKey(name, question), answers, correctAnswerId, open: input.open ?? true };
}

export async function findPoll(db: Db, siteId: string, id: string): Promise<Poll> {
  return found(await db.poll.findFirst({ where: { id, siteId } }), `poll ${id}`);
}

export function pollAnswers(poll: Poll): PollAnswer[] {
  return Array.isArray(poll.answers) ? (poll.answers as unknown as PollAnswer[]) : [];
}

/** Exact-value filters a legacy rQuery may give: { type, open, name }. */
export function pollFilter(filter: unknown): Record<string, unknown> {
  if (filter === undefined || filter === null) return {};
  if (typeof filter !== 'object' || Array.isArray(filter)) throw badInput('rQuery must be an object such as {"type":"trivia"}', 'rQuery');
  const where: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'type' && (value === 'poll' || value === 'prediction' || value === 'trivia')) where.type = value;
    else if (key === 'open' && typeof value === 'boolean') where.open = value;
    else if (key === 'name' && typeof value === 'string') where.name = value;
    else throw badInput(`rQuery.${key} is not a filter (type: poll | prediction | trivia, open: boolean, name: string)`, `rQuery.${key}`);
  }
  return where;
}

/**
 * What one viewer sees of a poll, in words, from its results and what this page knows of the viewer: the
 * stage it is at, each answer's share, and the sentences that say where the viewer stands. No DOM here
 * (pollCard.ts draws it), so the wording is in one place. Right and wrong are said in words as well as
 * colour, and never before the right answer is revealed.
 */
import type { PollResults } from '../shared/contracts/viewerProtocol';

/**
 * - `open`: the viewer may answer (or sign in to), nothing chosen yet;
 * - `answered`: the viewer's answer is in, the poll still open;
 * - `closed`: no more answers and nothing to reveal (an opinion poll);
 * - `waiting`: a prediction closed, its result not known yet;
 * - `revealed`: the right answer is known (trivia closed, prediction resolved).
 */
export type PollStage = 'open' | 'answered' | 'closed' | 'waiting' | 'revealed';

/** What the page knows of the viewer beside the results. */
export interface ViewerSide {
  signedIn: boolean;
  /** The viewer's answer ID, sent from here or read from the results; null when none. */
  mine: string | null;
  sending: boolean;
  /** The last answer sent did not go through (and may be tried again). */
  failed: boolean;
}

/** One answer as shown. */
export interface AnswerLine {
  id: string;
  text: string;
  count: number;
  /** Its share of all answers, in whole percent. */
  share: number;
  mine: boolean;
  /** The right answer, once revealed. */
  correct: boolean;
  /** For the viewer's own answer once revealed: whether it was right. */
  verdict: 'right' | 'wrong' | null;
  /** The words beside it ('' none): whose answer it is, and once revealed, right or wrong. */
  tag: string;
}

export interface PollDisplay {
  stage: PollStage;
  question: string;
  lines: AnswerLine[];
  /** Answers given in all. */
  total: number;
  /** Whether the viewer may answer now: each line is a button. */
  answerable: boolean;
  /** What the status line says, in one or two sentences. */
  status: string;
  /** Which status it is (a data attribute, for styles and tests). */
  statusKind: 'sign-in' | 'choose' | 'sending' | 'failed' | 'answered' | 'closed' | 'waiting' | 'right' | 'wrong' | 'revealed';
  /** What a screen reader hears when the results change, at most once every {@link ANNOUNCE_INTERVAL_MS}. */
  announcement: string;
}

/** Shortest time between two summaries ({@link PollDisplay.announcement}) read out for one poll. */
export const ANNOUNCE_INTERVAL_MS = 4000;

/** "1 vote", "3 votes". */
export const votes = (count: number) => `${count} ${count === 1 ? 'vote' : 'votes'}`;

/** Whole percent of `count` in `total` (0 when nobody answered yet). */
export const shareOf = (count: number, total: number) => (total > 0 ? Math.round((count / total) * 100) : 0);

const ANSWERED: Record<string, string> = {
  trivia: 'Your answer is in. The right answer is revealed when the trivia closes.',
  prediction: 'Your prediction is in. The result is revealed once it is known.',
};

/**
 * The right answer once revealed to every viewer: never while the poll is open (trivia reveals at close, a
 * prediction resolves at or after it), even when the caller may read it sooner (an admin's own token).
 */
const revealedAnswer = (results: PollResults) => (results.open ? null : results.correctAnswerId);

function stageOf(results: PollResults, mine: string | null): PollStage {
  if (revealedAnswer(results) !== null) return 'revealed';
  if (results.open) return mine ? 'answered' : 'open';
  return results.type === 'prediction' ? 'waiting' : 'closed';
}

function tagOf(line: Pick<AnswerLine, 'mine' | 'correct' | 'verdict'>): string {
  if (line.verdict === 'right') return 'Your answer · right';
  if (line.verdict === 'wrong') return 'Your answer · wrong';
  if (line.correct) return 'Right answer';
  return line.mine ? 'Your answer' : '';
}

function statusOf(stage: PollStage, results: PollResults, viewer: ViewerSide, mineRight: boolean | null): Pick<PollDisplay, 'status' | 'statusKind'> {
  switch (stage) {
    case 'open':
      if (!viewer.signedIn) return { status: 'Sign in to answer.', statusKind: 'sign-in' };
      if (viewer.sending) return { status: 'Sending your answer…', statusKind: 'sending' };
      if (viewer.failed) return { status: 'Your answer did not go through. Try again.', statusKind: 'failed' };
      return { status: 'Choose one answer. It is final.', statusKind: 'choose' };
    case 'answered':
      return { status: ANSWERED[results.type] ?? 'Your vote is in.', statusKind: 'answered' };
    case 'closed':
      return { status: 'Voting closed. Final results.', statusKind: 'closed' };
    case 'waiting':
      return { status: 'Voting closed. Waiting for the result.', statusKind: 'waiting' };
    case 'revealed': {
      const right = results.answers.find((answer) => answer.id === results.correctAnswerId)?.text ?? '';
      if (mineRight === true) return { status: 'You got it right!', statusKind: 'right' };
      if (mineRight === false) return { status: `You got it wrong. The right answer is ${right}.`, statusKind: 'wrong' };
      return { status: `The right answer is ${right}.`, statusKind: 'revealed' };
    }
  }
}

/** What the viewer sees of `results`. */
export function pollDisplay(results: PollResults, viewer: ViewerSide): PollDisplay {
  const mine = viewer.mine ?? results.mine?.answerId ?? null;
  const stage = stageOf(results, mine);
  const revealed = stage === 'revealed';
  const lines = results.answers.map((answer): AnswerLine => {
    const isMine = answer.id === mine;
    const correct = revealed && answer.id === revealedAnswer(results);
    const verdict: AnswerLine['verdict'] = revealed && isMine ? (correct ? 'right' : 'wrong') : null;
    const line = { id: answer.id, text: answer.text, count: answer.count, share: shareOf(answer.count, results.total), mine: isMine, correct, verdict };
    return { ...line, tag: tagOf(line) };
  });
  const mineLine = lines.find((line) => line.mine);
  const { status, statusKind } = statusOf(stage, results, viewer, revealed && mineLine ? mineLine.verdict === 'right' : null);
  const figures = lines.map((line) => `${line.text}: ${line.share} percent${line.tag ? `, ${line.tag}` : ''}`).join('; ');
  return {
    stage,
    question: results.question,
    lines,
    total: results.total,
    answerable: stage === 'open' && viewer.signedIn && !mine,
    status,
    statusKind,
    announcement: `${results.question} ${figures}. ${votes(results.total)}. ${status}`,
  };
}

/**
 * Answers a subgraph running in this process gives without executing an operation, in their plain happy
 * case, for the REST bridge (the content check at a gated channel's go-live: thousands at once, where the
 * executor's ~1 ms each would be most of the work). A quick answer is the operation's root field as its
 * resolvers and scalars would give it, every field of its types; null means "execute as usual". The
 * subgraph registers it on the deployment's ServiceDeps; the in-process executor reads it from there.
 */
import type { Identity } from './auth/identity';

/** The root field's value, field by field, or null for the normal path. */
export type QuickAnswer = (variables: Record<string, unknown>, identity: Identity) => Promise<Record<string, unknown> | null>;

/** The quick answers of one deployment's subgraphs in this process, by name. */
export interface QuickAnswers {
  /** Query.contentCheck (subgraphs/content/contentCheck.ts: checkContentKept). */
  contentCheck?: QuickAnswer;
}

export type QuickAnswerName = keyof QuickAnswers;

/** A deployment's place for quick answers, with a count of those given (tests and stats: proof the quick path ran). */
export interface QuickAnswerRegistry extends QuickAnswers {
  answered: Record<QuickAnswerName, number>;
  /** Requests answered before express (gateway/door.ts), all of them quick answers counted in `answered` too. */
  answeredAtDoor: number;
}

export const quickAnswerRegistry = (): QuickAnswerRegistry => ({ answered: { contentCheck: 0 }, answeredAtDoor: 0 });

const unchangingValues = new WeakSet<object>();

/**
 * Marks a part of a quick answer as one that never changes while it exists (built once from a kept read):
 * whoever serializes it may keep its text for the next answer that holds the same object.
 */
export function unchanging<T extends object>(value: T): T {
  unchangingValues.add(value);
  return value;
}

/** Whether `value` was marked with `unchanging`. */
export const isUnchanging = (value: object): boolean => unchangingValues.has(value);

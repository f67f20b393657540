/**
 * A subscription field the live server hands to a module of its own (gateway/pollResultsFeed.ts): the
 * module decides when to push and what, the live server keeps the socket side (framing, slow readers,
 * the per-socket cap, complete and close).
 */
import type { GraphQLError } from 'graphql';
import type { Identity } from '../shared/auth/identity';

export interface LiveStreamSubscription {
  /** The socket's identity (site ID, and the viewer's account when a JWT was given). */
  identity: Identity;
  /** The field's arguments, coerced. */
  args: Record<string, unknown>;
  /** Equal for subscriptions whose selection and variables are equal: they render a root value alike, so one rendering serves them all. */
  documentKey: string;
  /** The subscription's selection executed on `rootValue`, encoded as the rest of a `next` frame (the costly part: share it). */
  render(rootValue: Record<string, unknown>): Buffer;
  /** Sends a rendered payload to this subscriber. */
  send(payload: Buffer): void;
  /** Ends the subscription with errors (an `error` message); the stream forgets it itself. */
  fail(errors: readonly GraphQLError[]): void;
}

export interface LiveStream {
  /** Starts one subscription; returns what stops it (complete, or the socket closed). */
  subscribe(subscription: LiveStreamSubscription): () => void;
  /** Called once when the live server closes. */
  close?(): void;
}

/**
 * Subscription fields the live server hands to a module of their own (gateway/live/feeds/pollResults.ts): the
 * module decides when to push and what; the live server keeps the socket side (framing, slow readers,
 * the per-socket cap, complete and close) through the Streams below.
 */
import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { Identity } from '../../shared/auth/identity';
import { executeFrame, sendFrame, type Connection } from './groups';
import type { RenderedEvent } from './viewerChannel';

export interface LiveStreamSubscription {
  /** The connection's identity (site ID, and the viewer's account when a JWT was given). */
  identity: Identity;
  /** The connection's device (Connection.deviceId). */
  deviceId: string | null;
  /** The field's arguments, coerced. */
  args: Record<string, unknown>;
  /** Equal for subscriptions whose selection and variables are equal: they render a root value alike, so one rendering serves them all. */
  documentKey: string;
  /** The subscription's selection executed on `rootValue` and serialized (the costly part: share it). */
  render(rootValue: Record<string, unknown>): RenderedEvent;
  /** Sends a rendered payload to this subscriber. */
  send(payload: RenderedEvent): void;
  /** Ends the subscription with errors (an `error` message); the stream forgets it itself. */
  fail(errors: readonly GraphQLError[]): void;
}

export interface LiveStream {
  /** Starts one subscription; returns what stops it (complete, or the socket closed). */
  subscribe(subscription: LiveStreamSubscription): () => void;
  /** Called once when the live server closes. */
  close?(): void;
}

/** The stream subscriptions of one live server: started, stopped, counted. */
export class Streams {
  count = 0;

  constructor(private readonly schema: () => GraphQLSchema) {}

  /** Starts a subscription of `connection` under operation `id`; `sendErrors` answers its failure. */
  start(
    connection: Connection,
    id: string,
    stream: LiveStream,
    request: { document: DocumentNode; variables: Record<string, unknown>; args: Record<string, unknown>; documentKey: string },
    sendErrors: (errors: readonly GraphQLError[]) => void,
  ): void {
    const target = { connection, framePrefix: connection.channel.framePrefix(id) };
    let ended = false;
    const end = () => {
      ended = true;
      this.count -= 1;
    };
    this.count += 1;
    const stop = stream.subscribe({
      identity: connection.identity,
      deviceId: connection.deviceId,
      args: request.args,
      documentKey: request.documentKey,
      render: (rootValue) => executeFrame(this.schema, request.document, request.variables, rootValue),
      send: (payload) => {
        if (!ended) sendFrame(target, payload);
      },
      fail: (errors) => {
        if (ended) return;
        end();
        connection.streams.delete(id);
        sendErrors(errors);
      },
    });
    if (ended) return;
    connection.streams.set(id, () => {
      end();
      stop();
    });
  }

  /** Stops one subscription (complete). */
  stop(connection: Connection, id: string): void {
    connection.streams.get(id)?.();
    connection.streams.delete(id);
  }

  /** Stops every subscription of a closed socket. */
  stopAll(connection: Connection): void {
    for (const stop of connection.streams.values()) stop();
    connection.streams.clear();
  }
}

/**
 * The transport-neutral seam of the live server: a viewer's channel is whatever carries its frames (a
 * graphql-ws socket, a Server-Sent Events stream, a multipart HTTP response). The live server's groups
 * hold viewers of every transport side by side; an event is executed once per group and encoded once
 * per transport (RenderedEvent), so a frame costs one serialization per transport, not one per viewer.
 *
 * This module imports nothing of the live server or of the transports: both import it.
 */
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';

/** How a viewer is connected (the `transport` label of the viewer gauges). */
export type Transport = 'websocket' | 'sse' | 'multipart';
export const TRANSPORTS: readonly Transport[] = ['websocket', 'sse', 'multipart'];

/** The WebSocket close codes the live server ends connections with; HTTP streams end alike (see ViewerChannel.close). */
export const CLOSE_GOING_AWAY = 1001;
/** "Service Restart": a drain; clients come back through the balancer, elsewhere. */
export const CLOSE_SERVICE_RESTART = 1012;
/** graphql-ws's Unauthorized: the developer key the connection was opened with was revoked. */
export const CLOSE_UNAUTHORIZED = 4401;

/**
 * One event's execution result as JSON, made once for a group of viewers; each transport encodes it
 * into its frame once (on first use) and every viewer of that transport in the group gets that buffer.
 */
export class RenderedEvent {
  private websocket: Buffer | null = null;
  private sse: Buffer | null = null;
  private multipart: Buffer | null = null;

  /** Whole frames by frame prefix (a socket's `{"id":…}` part, shared by viewers that chose the same id): see `framed`. */
  private byPrefix: Map<Buffer, Buffer> | null = null;

  constructor(readonly json: string) {}

  /** The frame of `transport`, encoded by `encode` the first time it is asked for. */
  frame(transport: Transport, encode: (json: string) => Buffer): Buffer {
    return (this[transport] ??= encode(this.json));
  }

  /**
   * The whole frame, ready for the wire, of viewers whose frame prefix is this very buffer: `wrap` of the
   * prefix and the transport's `payload`, built once per event and prefix, then the same bytes are written
   * to each of them (no allocation per viewer, not even a closure). Prefixes are shared where viewers chose
   * the same operation id; distinct ones past a few are built each time, so a group of viewers with random
   * ids does not fill a map per event.
   */
  framed(prefix: Buffer, payload: Buffer, wrap: (prefix: Buffer, payload: Buffer) => Buffer): Buffer {
    const byPrefix = (this.byPrefix ??= new Map<Buffer, Buffer>());
    let frame = byPrefix.get(prefix);
    if (frame) return frame;
    frame = wrap(prefix, payload);
    if (byPrefix.size < MAX_SHARED_PREFIXES) byPrefix.set(prefix, frame);
    return frame;
  }
}

/** Whole frames one event keeps by prefix (viewers mostly share one or two operation ids). */
const MAX_SHARED_PREFIXES = 16;

/** What carries one viewer connection's frames. */
export interface ViewerChannel {
  readonly transport: Transport;
  /** Whether frames can still be sent. */
  readonly open: boolean;
  /** The per-operation part of a `next` frame, made once per subscription (empty where a stream carries one operation). */
  framePrefix(operationId: string): Buffer;
  /** Sends a `next` of the operation whose prefix this is; `event` is shared, so encode it with `event.frame`. */
  next(framePrefix: Buffer, event: RenderedEvent): void;
  /** Answers an operation with errors; the operation is over. */
  errors(operationId: string, errors: readonly GraphQLFormattedError[]): void;
  /** Answers a query or mutation with its one result; the operation is over. */
  result(operationId: string, result: ExecutionResult): void;
  /** Ends the connection: CLOSE_SERVICE_RESTART (a drain: come back elsewhere), CLOSE_GOING_AWAY, or CLOSE_UNAUTHORIZED (its key was revoked). */
  close(code: number): void;
}

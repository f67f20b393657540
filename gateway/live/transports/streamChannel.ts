/**
 * What the two HTTP transports share: a viewer connection that is one HTTP response carrying one
 * operation (graphql-sse's "distinct connections", Apollo's multipart subscriptions). The response
 * starts once the subscription is in place; an operation refused before that (credentials, document,
 * arguments) is answered as a plain JSON error with its status instead. Idle streams get a heartbeat
 * from one timer per transport, not one per viewer.
 */
import type { Request, Response } from 'express';
import type { Socket } from 'node:net';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { ErrorCode, statusForCode } from '../../../shared/errors';
import { jsonValueProblem } from '../../../shared/jsonInput';
import type { Logger } from '../../../shared/logger';
import { takeConnection } from '../../../shared/httpServer';
import { recordViewerDropped } from '../../../shared/metrics';
import type { LiveServer, OperationRequest } from '../liveServer';
import { Rounds } from '../rounds';
import type { RenderedEvent, Transport, ViewerChannel } from '../viewerChannel';

/** Bytes a viewer may leave unread before it is dropped (a socket's bufferedAmount, a response's writableLength). */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** How one HTTP transport frames what it carries. */
export interface StreamFormat {
  transport: Exclude<Transport, 'websocket'>;
  contentType: string;
  /** Written when the stream starts (it also makes proxies and browsers pass the headers on at once). */
  opening: string;
  heartbeat: string;
  /** A `next` frame of one execution result (as JSON): made once per event and group, shared by its viewers. */
  encodeNext(json: string): Buffer;
  /** The frames that end an operation with errors. */
  errors(errors: readonly GraphQLFormattedError[]): string;
  /** The frames of a query's or mutation's one result, and its end. */
  result(result: ExecutionResult): string;
  /** Written when the server ends the stream (drain or shutdown, `code` as a socket's close code): the client subscribes again. */
  closing(code: number): string;
}

const CRLF = Buffer.from('\r\n');

/**
 * `data` as one chunk of a chunked HTTP/1.1 body. A stream writes its frames to the connection itself,
 * already chunked: an event's frame is then one buffer shared by every viewer of the group and one write
 * each, sent at once — Node's own chunked writes copy a size line per viewer and hold everything in a
 * corked socket until the whole fan-out loop is done (measured: p50 ×2–4 of the socket's).
 */
export function chunked(data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]);
}

/** Writes every open stream of one transport its heartbeat, a slice of the streams at a time (gateway/live/rounds.ts). */
export class Heartbeats {
  private readonly rounds: Rounds<HttpStream>;

  constructor(heartbeat: string, intervalMs: number) {
    const frame = chunked(heartbeat);
    this.rounds = new Rounds(intervalMs, (stream) => stream.write(frame));
  }

  add(stream: HttpStream): void {
    this.rounds.add(stream);
  }

  delete(stream: HttpStream): void {
    this.rounds.delete(stream);
  }

  close(): void {
    this.rounds.close();
  }
}

const EMPTY = Buffer.alloc(0);

/** A JSON answer of GraphQL errors, with the status of the first error's code (400 for an error of the document without one). */
export function refuse(res: Response, errors: readonly GraphQLFormattedError[]): void {
  const code = errors[0]?.extensions?.code;
  res.status(code === undefined ? 400 : statusForCode(code)).json({ errors });
}

const formatted = (error: GraphQLError): GraphQLFormattedError => ({ message: error.message, extensions: { code: error.extensions.code } });

/** How long an ended stream waits for its client to close the connection. */
const END_GRACE_MS = 10_000;

/** The last chunk of a chunked body (no trailers). */
const LAST_CHUNK = Buffer.from('0\r\n\r\n');

/**
 * One HTTP response carrying one operation's frames. Until its headers go out it is an express response
 * (refusals are plain JSON answers); from then on it is the bare connection, taken from Node's HTTP
 * server (shared/httpServer.ts `takeConnection`): the stream writes its chunks and their framing itself
 * and closes the connection when it ends, so an idle viewer holds its socket and this object only.
 */
export class HttpStream implements ViewerChannel {
  readonly transport: Transport;
  private started = false;
  private ended = false;
  /** The response, until the headers went out. */
  private res: Response | null;
  /** The connection, once the headers went out: frames go to it directly, already chunked. */
  private socket: Socket | null = null;
  private onGone: (() => void) | null = null;
  private readonly encode: (json: string) => Buffer;
  private readonly beforeStart = () => this.gone();

  constructor(
    res: Response,
    private readonly format: StreamFormat,
    private readonly heartbeats: Heartbeats,
  ) {
    this.res = res;
    this.transport = format.transport;
    this.encode = (json) => chunked(format.encodeNext(json));
    // Before the headers: the client went while the operation was being set up.
    res.once('close', this.beforeStart);
  }

  get open(): boolean {
    if (this.ended) return false;
    return this.socket ? !this.socket.destroyed : !this.res?.destroyed;
  }

  /** Whether the stream's headers went out (after that, errors are frames, not a status). */
  get streaming(): boolean {
    return this.started;
  }

  /** Runs `hook` once, when the stream is over (either side ended it). */
  whenGone(hook: () => void): void {
    if (this.ended) hook();
    else this.onGone = hook;
  }

  framePrefix(): Buffer {
    return EMPTY;
  }

  /** Sends the headers and the opening; from now on the stream gets heartbeats. */
  start(): void {
    const { res } = this;
    if (this.started || !this.open || !res) return;
    this.started = true;
    res.writeHead(200, {
      'content-type': this.format.contentType,
      'cache-control': 'no-cache, no-store',
      // nginx and similar proxies: pass each frame on as it comes.
      'x-accel-buffering': 'no',
      // The stream frames its chunks itself (see `chunked`) and ends with the connection (see `end`).
      'transfer-encoding': 'chunked',
      connection: 'close',
    });
    res.flushHeaders();
    this.res = null;
    // The response's observers hear of its end when the connection is handed over; the stream goes on.
    res.removeListener('close', this.beforeStart);
    const socket = takeConnection(res);
    if (!socket) {
      this.gone();
      return;
    }
    this.socket = socket;
    socket.once('close', () => this.gone());
    this.write(chunked(this.format.opening));
    this.heartbeats.add(this);
  }

  /** Writes a frame already chunked (see `chunked`). */
  write(frame: Buffer): void {
    const { socket } = this;
    if (!this.open || !socket) return;
    if (socket.writableLength > MAX_BUFFERED_BYTES) {
      // A viewer that does not read is dropped rather than buffered without bound.
      recordViewerDropped('slow_reader');
      socket.destroy();
      return;
    }
    socket.write(frame);
  }

  next(_framePrefix: Buffer, event: RenderedEvent): void {
    this.start();
    this.write(event.frame(this.format.transport, this.encode));
  }

  errors(_id: string, errors: readonly GraphQLFormattedError[]): void {
    if (!this.open) return;
    if (!this.started) {
      this.refuse(errors);
      return;
    }
    this.end(this.format.errors(errors));
  }

  result(_id: string, result: ExecutionResult): void {
    this.start();
    this.end(this.format.result(result));
  }

  close(code: number): void {
    if (!this.open) return;
    if (!this.started) {
      this.refuse([{ message: 'this instance is shutting down; subscribe again', extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } }]);
      return;
    }
    this.end(this.format.closing(code));
  }

  /** Before the headers: a plain JSON answer, and the operation is over. */
  private refuse(errors: readonly GraphQLFormattedError[]): void {
    if (this.res) refuse(this.res, errors);
    this.gone();
  }

  private end(last: string): void {
    const { socket } = this;
    if (!this.open || !socket) return;
    if (last) this.write(chunked(last));
    this.gone();
    socket.end(LAST_CHUNK);
    // A client that never closes its side (or never reads what is left) does not hold the connection, nor a server's close, for good.
    socket.setTimeout(END_GRACE_MS, () => socket.destroy());
  }

  /** The stream is over: no more heartbeats, and the live server frees the connection. */
  private gone(): void {
    if (this.ended) return;
    this.ended = true;
    this.heartbeats.delete(this);
    const hook = this.onGone;
    this.onGone = null;
    hook?.();
  }
}

/** The operation of a GraphQL-over-HTTP request: a JSON body (POST) or query parameters (GET); a string naming the problem when it is none. */
export function operationOf(req: Request): OperationRequest | string {
  const source = req.method === 'GET' ? (req.query as Record<string, unknown>) : (req.body as Record<string, unknown> | undefined);
  if (!source || typeof source !== 'object' || Array.isArray(source)) return 'the body must be a JSON object with a query';
  const { query, operationName } = source;
  let { variables } = source;
  if (typeof query !== 'string') return 'query must be a string';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return 'operationName must be a string';
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables) as unknown;
    } catch {
      return 'variables must be a JSON object';
    }
  }
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return 'variables must be a JSON object';
  const problem = jsonValueProblem({ variables: variables ?? {} }, '');
  if (problem) return problem;
  return { query, operationName: operationName, variables: variables as Record<string, unknown> | null | undefined };
}

/**
 * Serves one operation on one HTTP response: authenticates the request's own headers like a socket's
 * connectionParams, subscribes, and frees everything when either side ends the response.
 */
export async function serveOperation(live: LiveServer, stream: HttpStream, req: Request, res: Response, logger: Logger): Promise<void> {
  const request = operationOf(req);
  if (typeof request === 'string') {
    refuse(res, [{ message: request, extensions: { code: ErrorCode.BAD_USER_INPUT } }]);
    return;
  }
  let connection;
  try {
    connection = await live.connect(stream, req.headers);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    refuse(res, [formatted(error)]);
    return;
  }
  if (!connection) {
    // The client went while its credentials were checked, or the server is closing.
    stream.close(0);
    return;
  }
  const opened = connection;
  stream.whenGone(() => live.disconnect(opened));
  try {
    await live.subscribe(connection, '', request);
  } catch (error) {
    logger.error({ err: error }, 'live subscription over HTTP failed');
    stream.errors('', [{ message: 'internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }]);
    return;
  }
  // In place (and caught up): the stream starts now if nothing was sent yet.
  if (stream.open) stream.start();
  else live.disconnect(connection);
}

/**
 * Live viewers over WebSocket: the graphql-ws protocol (graphql-transport-ws) on the gateway's /graphql
 * path. This is the socket side only: connection_init and its credentials (connectionParams), ping and
 * keep-alive, message dispatch, slow readers; subscriptions run in the live server (gateway/live/liveServer.ts).
 */
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, parseMessage, stringifyMessage, handleProtocols } from 'graphql-ws';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import type { HeaderBag } from '../../../shared/auth/authenticate';
import { recordViewerDropped } from '../../../shared/metrics';
import type { Logger } from '../../../shared/logger';
import type { LiveServer } from '../liveServer';
import type { Connection } from '../groups';
import { Rounds } from '../rounds';
import { CLOSE_UNAUTHORIZED, type RenderedEvent, type ViewerChannel } from '../viewerChannel';
import { MAX_BUFFERED_BYTES } from './streamChannel';
import { messageText } from '../../../shared/wsMessage';

export interface SocketTransportOptions {
  /** URL path of the endpoint (the gateway's /graphql). */
  path: string;
  logger: Logger;
  /** Milliseconds a socket may take to send connection_init (default 3000). */
  connectionInitWaitTimeoutMs?: number;
  /** Milliseconds between keep-alive pings; a socket that misses one is dropped (default 30000). */
  keepAliveMs?: number;
}

/** The rest of a `next` frame after its per-subscription prefix: the result, and the frame's closing brace. */
const encodeWebSocket = (json: string) => Buffer.from(`${json}}`);
const NO_PREFIX = Buffer.alloc(0);

/**
 * Frame prefixes of short operation ids (graphql-ws clients that number their operations: "1", "2"…),
 * made once per process and shared by every socket that uses the id, so an event's whole frame is built
 * once per id (RenderedEvent.framed). Longer ids (random UUIDs) get a prefix of their own.
 */
const sharedPrefixes = new Map<string, Buffer>();
const SHARED_ID_MAX_LENGTH = 8;
const MAX_SHARED_IDS = 1024;

function prefixOf(id: string): Buffer {
  const shared = sharedPrefixes.get(id);
  if (shared) return shared;
  const prefix = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  if (id.length <= SHARED_ID_MAX_LENGTH && sharedPrefixes.size < MAX_SHARED_IDS) sharedPrefixes.set(id, prefix);
  return prefix;
}

/**
 * A server's WebSocket text frame (FIN, unmasked: RFC 6455 §5.2) carrying `prefix` then `body`, header
 * included, in one buffer: one plain write per viewer instead of `ws`'s header and payload (two chunks).
 */
export function textFrame(prefix: Buffer, body: Buffer): Buffer {
  const length = prefix.length + body.length;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81;
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  prefix.copy(frame, header);
  body.copy(frame, header + prefix.length);
  return frame;
}

/**
 * The TCP socket under a `ws` socket. Writing a whole frame to it is what `ws` itself does for a frame
 * it sends without compression (perMessageDeflate is off here, and nothing sends Blobs, so its sender
 * never queues): frames keep their order with the ones `ws` writes (pongs, errors, closes).
 */
const tcpOf = (socket: WebSocket): Socket | undefined => (socket as unknown as { _socket?: Socket })._socket;

/** One viewer socket, as the live server's channel. */
class SocketChannel implements ViewerChannel {
  readonly transport = 'websocket' as const;
  alive = true;
  state: 'new' | 'initialising' | 'ready' = 'new';
  connection: Connection | null = null;
  /** Closes the socket unless connection_init arrives in time; cleared when it does (a join storm's timers then never fire). */
  initTimer: NodeJS.Timeout | undefined;

  constructor(readonly socket: WebSocket) {}

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** `{"id":"…","type":"next","payload":` — the only per-subscriber part of a frame, encoded once. */
  framePrefix(id: string): Buffer {
    return prefixOf(id);
  }

  next(framePrefix: Buffer, event: RenderedEvent): void {
    const { socket } = this;
    if (socket.readyState !== WebSocket.OPEN) return;
    const tcp = tcpOf(socket);
    if ((tcp?.writableLength ?? socket.bufferedAmount) > MAX_BUFFERED_BYTES) {
      // A viewer that does not read is dropped rather than buffered without bound.
      recordViewerDropped('slow_reader');
      socket.terminate();
      return;
    }
    const payload = event.frame('websocket', encodeWebSocket);
    // The whole frame, shared by the viewers of this prefix: the fan-out writes the same bytes to each.
    const frame = event.framed(framePrefix, payload, textFrame);
    if (tcp) tcp.write(frame);
    else socket.send(Buffer.concat([framePrefix, payload]), { binary: false });
  }

  errors(id: string, errors: readonly GraphQLFormattedError[]): void {
    if (this.open) this.socket.send(JSON.stringify({ id, type: MessageType.Error, payload: errors }));
  }

  /** A query's or mutation's answer and its `complete`, both frames in one write (a reaction is answered thousands of times a second). */
  result(id: string, result: ExecutionResult): void {
    const next = JSON.stringify({ id, type: MessageType.Next, payload: result });
    const complete = stringifyMessage({ id, type: MessageType.Complete });
    const tcp = tcpOf(this.socket);
    if (!tcp || this.socket.readyState !== WebSocket.OPEN) {
      this.socket.send(next);
      this.socket.send(complete);
      return;
    }
    tcp.write(Buffer.concat([textFrame(NO_PREFIX, Buffer.from(next)), textFrame(NO_PREFIX, Buffer.from(complete))]));
  }

  close(code: number): void {
    this.socket.close(code, code === CLOSE_UNAUTHORIZED ? 'Unauthorized: the developer key was revoked' : 'Server shutting down');
  }
}

/** The graphql-ws endpoint: takes over WebSocket upgrades of `path` and serves them from the live server. */
export class SocketTransport {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024, handleProtocols, clientTracking: false });
  private readonly channels = new Set<SocketChannel>();
  /** Keep-alive pings, a slice of the sockets at a time (gateway/live/rounds.ts). */
  private readonly keepAlive: Rounds<SocketChannel>;

  constructor(
    private readonly live: LiveServer,
    private readonly options: SocketTransportOptions,
  ) {
    this.keepAlive = new Rounds(options.keepAliveMs ?? 30_000, (channel) => this.sweep(channel));
    live.onClose((code) => {
      this.keepAlive.close();
      // Sockets still waiting for connection_init are no viewers of the live server yet.
      for (const channel of this.channels) if (!channel.connection) channel.close(code);
      this.wss.close();
    });
  }

  /** Takes over WebSocket upgrades of `path` on the HTTP server. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket, head) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== this.options.path) {
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.onConnection(ws));
    });
  }

  private onConnection(socket: WebSocket): void {
    if (socket.protocol !== GRAPHQL_TRANSPORT_WS_PROTOCOL) {
      socket.close(CloseCode.SubprotocolNotAcceptable, 'Subprotocol not acceptable');
      return;
    }
    const channel = new SocketChannel(socket);
    this.channels.add(channel);
    this.keepAlive.add(channel);
    // As graphql-ws's own server: the timeout is for the client's ConnectionInit to arrive. Once it has, the
    // connection waits for its own authentication, however long a loaded instance takes over it.
    channel.initTimer = setTimeout(() => {
      if (channel.state === 'new') socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
    }, this.options.connectionInitWaitTimeoutMs ?? 3000);
    socket.on('pong', () => {
      channel.alive = true;
    });
    socket.on('message', (data: RawData) => {
      this.onMessage(channel, data).catch((error: Error) => {
        this.options.logger.error({ err: error }, 'live message handling failed');
        socket.close(CloseCode.InternalServerError, 'Internal server error');
      });
    });
    socket.once('close', () => {
      clearTimeout(channel.initTimer);
      this.channels.delete(channel);
      this.keepAlive.delete(channel);
      if (channel.connection) this.live.disconnect(channel.connection);
    });
    socket.on('error', () => socket.terminate());
  }

  /** A socket that did not answer its last ping is dropped; else it is pinged again. */
  private sweep(channel: SocketChannel): void {
    if (!channel.alive) {
      recordViewerDropped('keepalive_missed');
      channel.socket.terminate();
      return;
    }
    channel.alive = false;
    channel.socket.ping();
  }

  private async onMessage(channel: SocketChannel, data: RawData): Promise<void> {
    const { socket } = channel;
    let message;
    try {
      message = parseMessage(messageText(data));
    } catch (error) {
      socket.close(CloseCode.BadRequest, (error as Error).message.slice(0, 120));
      return;
    }
    switch (message.type) {
      case MessageType.ConnectionInit: {
        if (channel.state !== 'new') {
          socket.close(CloseCode.TooManyInitialisationRequests, 'Too many initialisation requests');
          return;
        }
        channel.state = 'initialising';
        clearTimeout(channel.initTimer);
        await this.initialise(channel, message.payload ?? {});
        return;
      }
      case MessageType.Ping:
        socket.send(stringifyMessage({ type: MessageType.Pong }));
        return;
      case MessageType.Pong:
        return;
      case MessageType.Subscribe: {
        const { connection } = channel;
        if (channel.state !== 'ready' || !connection) {
          socket.close(CloseCode.Unauthorized, 'Unauthorized');
          return;
        }
        if (this.live.has(connection, message.id)) {
          socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${message.id} already exists`);
          return;
        }
        await this.live.subscribe(connection, message.id, message.payload);
        return;
      }
      case MessageType.Complete:
        if (channel.connection) this.live.complete(channel.connection, message.id);
        return;
      default:
        socket.close(CloseCode.BadRequest, `Unexpected message of type ${message.type} received`);
    }
  }

  private async initialise(channel: SocketChannel, params: Record<string, unknown>): Promise<void> {
    const { socket } = channel;
    const headers: HeaderBag = {};
    const pick = (...names: string[]) => names.map((name) => params[name]).find((value): value is string => typeof value === 'string');
    headers['x-service-client-id'] = pick('x-service-client-id', 'clientId', 'siteId');
    headers['x-service-developer-key'] = pick('x-service-developer-key', 'developerKey');
    const token = pick('Authorization', 'authorization', 'jwt');
    headers.authorization = token && !/^Bearer /i.test(token) ? `Bearer ${token}` : token;
    headers['x-service-device-id'] = pick('x-service-device-id', 'deviceId');
    try {
      channel.connection = await this.live.connect(channel, headers);
    } catch (error) {
      socket.close(CloseCode.Forbidden, error instanceof GraphQLError ? error.message.slice(0, 120) : 'Forbidden');
      return;
    }
    if (!channel.connection) return;
    channel.state = 'ready';
    socket.send(stringifyMessage({ type: MessageType.ConnectionAck }));
  }
}

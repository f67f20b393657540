/**
 * The embed's way to the live server: graphql-ws on its own origin, and Server-Sent Events (graphql-sse's
 * client, distinct connections at /graphql/stream) when the socket cannot open — no WebSocket in the
 * page, a WebSocket that throws (a CSP without ws:), or a proxy that refuses the upgrade. Both retry with jittered backoff; the subscriptions running
 * when the embed falls back move to SSE by themselves, so the viewer sees no difference. Every embed page
 * (the overlays, their polls, the chat) goes through this one client.
 */
import { createClient as createSocketClient, type Client as SocketClient, type ExecutionResult, type Sink } from 'graphql-ws';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';

export interface LiveRequest {
  query: string;
  variables?: Record<string, unknown>;
}

/**
 * A request made afresh each time a transport sends it. graphql-ws and graphql-sse (distinct connections)
 * serialize the request object they hold at every (re)send, so getters give a subscription that resumes
 * after a drop the caller's variables of that moment (the chat's `afterSeq`), not the first ones.
 */
function madeAtEachSend(make: () => LiveRequest): LiveRequest {
  return {
    get query() {
      return make().query;
    },
    get variables() {
      return make().variables;
    },
  };
}

export interface LiveClientOptions {
  siteId: string;
  /** The viewer's JWT now (read at each (re)connect), or null. */
  token(): string | null;
  /**
   * The viewer's device, as the content check knows it (the watch page's): a signed-in viewer's push of a
   * gated show going live then carries its own URL, when its check lets it play.
   */
  deviceId?: string;
  /** The server refused the token (expired, another site's): the caller drops it and carries on anonymous. */
  onTokenRefused(): void;
  /** A connection (the socket, or a subscription's SSE stream) is up. */
  onConnected(transport: 'websocket' | 'sse'): void;
  /** A connection dropped (it comes back by itself). */
  onClosed(): void;
}

/** What an embed page tells of its connection (read by the page around it, and by tests). */
export interface ConnectionState {
  /** How the page is connected (null before the first connection). */
  transport: 'websocket' | 'sse' | null;
  connected: boolean;
  /** Connections made so far (a reconnect adds one). */
  connections: number;
  /** Connections that dropped, and attempts to connect that failed. */
  drops: number;
}

/** The connection callbacks of a client that keep `state` current. */
export function reportConnection(state: ConnectionState): Pick<LiveClientOptions, 'onConnected' | 'onClosed'> {
  return {
    onConnected: (transport) => {
      state.transport = transport;
      state.connected = true;
      state.connections += 1;
    },
    onClosed: () => {
      state.connected = false;
      state.drops += 1;
    },
  };
}

/** Socket attempts that never opened before the embed falls back to SSE. */
const SOCKET_ATTEMPTS = 2;
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 15_000;
/** The socket's close code for refused credentials (graphql-ws Forbidden). */
const FORBIDDEN = 4403;

/** The close code of a socket that never opened (a refused upgrade, or one that could not be made at all). */
const ABNORMAL_CLOSURE = 1006;

/**
 * A socket that could not even be made (the page's WebSocket constructor threw, as it does under a CSP
 * without ws:): closed at once as a socket refused on the way is, so every failure to open takes one path
 * — counted, retried with backoff, then SSE. (graphql-ws alone would retry a throwing constructor forever.)
 */
function unmadeSocket(reason: unknown): WebSocket {
  const socket = {
    readyState: 3,
    protocol: '',
    onopen: null,
    onmessage: null,
    onerror: null,
    onclose: null as ((event: { code: number; reason: string; wasClean: boolean }) => void) | null,
    send: () => undefined,
    close: () => undefined,
  };
  const message = reason instanceof Error ? reason.message : String(reason);
  setTimeout(() => socket.onclose?.({ code: ABNORMAL_CLOSURE, reason: `the socket could not be made: ${message}`.slice(0, 120), wasClean: false }), 0);
  return socket as unknown as WebSocket;
}

/** The page's WebSocket, whose constructor never throws at graphql-ws: a refusal becomes a socket that closes at once. */
const SocketNeverThrowing = Object.assign(
  function makeSocket(url: string, protocol: string): WebSocket {
    try {
      return new WebSocket(url, protocol);
    } catch (error) {
      return unmadeSocket(error);
    }
  },
  { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 },
) as unknown as typeof WebSocket;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Milliseconds before retry number `retries`: exponential with jitter, so a whole audience dropped at once does not come back at once. */
export const backoffDelay = (retries: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retries) * (0.5 + Math.random() / 2);
const backoff = (retries: number) => sleep(backoffDelay(retries));

interface Running {
  request: LiveRequest;
  sink: Sink<ExecutionResult<unknown>>;
  onReconnected?: () => void;
  /** A query or mutation: answered once, never sent again on a new connection (a mutation would run twice). */
  once: boolean;
  /**
   * Handed to a socket that was up, or that came up while it waited: it may have been sent, so it fails
   * with a drop. One made while the socket was down waits for the next connection instead.
   */
  sent: boolean;
  stop: () => void;
  /** Bumped at each start: what an earlier connection still reports is ignored. */
  attempt: number;
  /**
   * Moved to a new connection (the fall back to SSE): what the old one still sent is ignored, so the first
   * answer of the new one is taken as after a reconnect (the caller drops what it showed; the live state follows).
   */
  moved: boolean;
}

/** One live connection for the embed: `subscribe` runs a subscription (or one query or mutation) on it. */
export class LiveClient {
  private socket: SocketClient | null = null;
  private sse: SseClient | null = null;
  private readonly running = new Set<Running>();
  private socketOpened = false;
  /** The socket is connected now (acknowledged, and not closed since). */
  private socketUp = false;
  private failedAttempts = 0;

  constructor(private readonly options: LiveClientOptions) {
    if (typeof WebSocket === 'undefined') this.fallBack();
    else this.openSocket();
  }

  get transport(): 'websocket' | 'sse' {
    return this.sse ? 'sse' : 'websocket';
  }

  /**
   * Runs subscription `request` (a function: made afresh at each resubscription); results go to `sink`.
   * `onReconnected` is told when its connection came back after a drop (the server then sends the live
   * state again). Returns what stops it.
   */
  subscribe<T>(request: LiveRequest | (() => LiveRequest), sink: Sink<ExecutionResult<T>>, onReconnected?: () => void): () => void {
    return this.run(typeof request === 'function' ? madeAtEachSend(request) : request, sink, false, onReconnected);
  }

  /**
   * Runs one query or mutation on the live connection: its single result (both protocols send it like a
   * subscription's). Rejects with the errors of a refused operation, or when the connection it went out on
   * drops first; one made while the socket is down waits for the next connection (it cannot have run).
   */
  execute<T>(request: LiveRequest): Promise<ExecutionResult<T>> {
    return new Promise((resolve, reject) => {
      let result: ExecutionResult<T> | null = null;
      this.run<T>(
        request,
        {
          next: (value) => {
            result = value;
          },
          error: reject,
          complete: () => (result ? resolve(result) : reject(new Error('no result'))),
        },
        true,
      );
    });
  }

  dispose(): void {
    for (const running of this.running) running.stop();
    this.running.clear();
    void this.socket?.dispose();
    this.sse?.dispose();
  }

  private run<T>(request: LiveRequest, sink: Sink<ExecutionResult<T>>, once: boolean, onReconnected?: () => void): () => void {
    const running: Running = { request, sink: sink, onReconnected, once, sent: false, stop: () => undefined, attempt: 0, moved: false };
    this.running.add(running);
    this.start(running);
    return () => {
      this.running.delete(running);
      running.stop();
    };
  }

  /** A query or mutation whose connection dropped before its answer: stopped (not sent again) and failed. */
  private dropOnce(running: Running): void {
    if (!this.running.delete(running)) return;
    running.stop();
    running.sink.error(new Error('the connection dropped before the answer'));
  }

  private headers(): Record<string, string> {
    const token = this.options.token();
    const { siteId, deviceId } = this.options;
    return { 'x-service-client-id': siteId, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(deviceId ? { 'x-service-device-id': deviceId } : {}) };
  }

  /** Runs `running` on the current connection, with a sink that ignores what earlier connections still report. */
  private start(running: Running): void {
    const attempt = ++running.attempt;
    const current = () => attempt === running.attempt && this.running.has(running);
    const sink: Sink<ExecutionResult<unknown>> = {
      next: (value) => current() && running.sink.next(value),
      error: (reason) => {
        if (!current()) return;
        this.running.delete(running);
        running.sink.error(reason);
      },
      complete: () => {
        if (!current()) return;
        this.running.delete(running);
        running.sink.complete();
      },
    };
    if (this.sse) {
      running.stop = this.sse.subscribe(running.request, sink, {
        connecting: (reconnecting) => {
          if (!reconnecting || !current()) return;
          if (running.once) this.dropOnce(running);
          else this.options.onClosed();
        },
        connected: (reconnected) => {
          if (running.once) return;
          this.options.onConnected('sse');
          if (reconnected || running.moved) running.onReconnected?.();
          running.moved = false;
        },
      });
    } else if (this.socket) {
      running.sent = this.socketUp;
      running.stop = this.socket.subscribe(running.request, sink);
    }
  }

  private openSocket(): void {
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/graphql`;
    const socket: SocketClient = createSocketClient({
      url,
      webSocketImpl: SocketNeverThrowing,
      lazy: false,
      onNonLazyError: () => undefined,
      connectionParams: () => this.headers(),
      keepAlive: 20_000,
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: backoff,
      on: {
        connected: (_socket, _payload, wasRetry) => {
          if (this.socket !== socket) return;
          this.socketOpened = true;
          this.socketUp = true;
          // graphql-ws sends what waited for this connection once it is told: from now on those may have run.
          for (const running of this.running) running.sent = true;
          this.options.onConnected('websocket');
          if (wasRetry) for (const running of this.running) running.onReconnected?.();
        },
        closed: (event) => {
          // A client given up for SSE can still report the attempt it had scheduled: it no longer speaks for this page.
          if (this.socket !== socket) return;
          this.socketUp = false;
          // graphql-ws would send queries and mutations again on the next socket: those that may have run fail instead.
          for (const running of [...this.running]) if (running.once && running.sent) this.dropOnce(running);
          this.options.onClosed();
          if ((event as CloseEvent).code === FORBIDDEN && this.options.token()) this.options.onTokenRefused();
          // A socket that never opened (an upgrade refused on the way, or one the page could not make): serve this viewer over SSE.
          if (!this.socketOpened && (event as CloseEvent).code !== FORBIDDEN && ++this.failedAttempts >= SOCKET_ATTEMPTS) this.fallBack();
        },
      },
    });
    this.socket = socket;
  }

  /** Serves this page over SSE from now on; once (later reports of the socket given up are ignored). */
  private fallBack(): void {
    if (this.sse) return;
    const socket = this.socket;
    this.socket = null;
    // The refused token is dropped like the socket's 4403: the next attempt goes without it.
    const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      if ((response.status === 401 || response.status === 403) && this.options.token()) this.options.onTokenRefused();
      return response;
    };
    this.sse = createSseClient({
      url: `${location.origin}/graphql/stream`,
      headers: () => this.headers(),
      fetchFn,
      retryAttempts: Number.POSITIVE_INFINITY,
      retry: backoff,
    });
    for (const running of this.running) {
      const stop = running.stop;
      running.moved = true;
      this.start(running);
      stop();
    }
    void socket?.dispose();
  }
}

/**
 * The embed's way to the live server: graphql-ws on its own origin, and Server-Sent Events (graphql-sse's
 * client, distinct connections at /graphql/stream) when the socket cannot open — no WebSocket in the
 * page, or a proxy that refuses the upgrade. Both retry with jittered backoff; the subscriptions running
 * when the embed falls back move to SSE by themselves, so the viewer sees no difference.
 */
import { createClient as createSocketClient, type Client as SocketClient, type ExecutionResult, type Sink } from 'graphql-ws';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';

export interface LiveRequest {
  query: string;
  variables?: Record<string, unknown>;
}

export interface LiveClientOptions {
  siteId: string;
  /** The viewer's JWT now (read at each (re)connect), or null. */
  token(): string | null;
  /** The server refused the token (expired, another site's): the caller drops it and carries on anonymous. */
  onTokenRefused(): void;
  /** A connection (the socket, or the SSE stream of the first subscription) is up. */
  onConnected(transport: 'websocket' | 'sse'): void;
  onClosed(): void;
}

/** Socket attempts that never opened before the embed falls back to SSE. */
const SOCKET_ATTEMPTS = 2;
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 15_000;
/** The socket's close code for refused credentials (graphql-ws Forbidden). */
const FORBIDDEN = 4403;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Exponential with jitter, so a whole audience dropped at once does not come back at once. */
const backoff = (retries: number) => sleep(Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retries) * (0.5 + Math.random() / 2));

interface Running {
  request: LiveRequest;
  sink: Sink<ExecutionResult<unknown>>;
  onReconnected?: () => void;
  stop: () => void;
  /** Bumped at each start: what an earlier connection still reports is ignored. */
  attempt: number;
}

/** One live connection for the embed: `subscribe` runs a subscription (or one query or mutation) on it. */
export class LiveClient {
  private socket: SocketClient | null = null;
  private sse: SseClient | null = null;
  private readonly running = new Set<Running>();
  private socketOpened = false;
  private failedAttempts = 0;

  constructor(private readonly options: LiveClientOptions) {
    if (typeof WebSocket === 'undefined') this.fallBack();
    else this.openSocket();
  }

  get transport(): 'websocket' | 'sse' {
    return this.sse ? 'sse' : 'websocket';
  }

  /**
   * Runs `request`; results go to `sink`. `onReconnected` is told when its connection came back after a
   * drop (the server then sends the live state again). Returns what stops it.
   */
  subscribe<T>(request: LiveRequest, sink: Sink<ExecutionResult<T>>, onReconnected?: () => void): () => void {
    const running: Running = { request, sink: sink as Sink<ExecutionResult<unknown>>, onReconnected, stop: () => undefined, attempt: 0 };
    this.running.add(running);
    this.start(running);
    return () => {
      this.running.delete(running);
      running.stop();
    };
  }

  dispose(): void {
    for (const running of this.running) running.stop();
    this.running.clear();
    void this.socket?.dispose();
    this.sse?.dispose();
  }

  private headers(): Record<string, string> {
    const token = this.options.token();
    return { 'x-service-client-id': this.options.siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) };
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
        connected: (reconnected) => {
          this.options.onConnected('sse');
          if (reconnected) running.onReconnected?.();
        },
      });
    } else if (this.socket) {
      running.stop = this.socket.subscribe(running.request, sink);
    }
  }

  private openSocket(): void {
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/graphql`;
    this.socket = createSocketClient({
      url,
      lazy: false,
      onNonLazyError: () => undefined,
      connectionParams: () => this.headers(),
      keepAlive: 20_000,
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: backoff,
      on: {
        connected: (_socket, _payload, wasRetry) => {
          this.socketOpened = true;
          this.options.onConnected('websocket');
          if (wasRetry) for (const running of this.running) running.onReconnected?.();
        },
        closed: (event) => {
          this.options.onClosed();
          if ((event as CloseEvent).code === FORBIDDEN && this.options.token()) this.options.onTokenRefused();
          // A socket that never opened (an upgrade refused on the way): serve this viewer over SSE.
          if (!this.socketOpened && (event as CloseEvent).code !== FORBIDDEN && ++this.failedAttempts >= SOCKET_ATTEMPTS) this.fallBack();
        },
      },
    });
  }

  private fallBack(): void {
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
      this.start(running);
      stop();
    }
    void socket?.dispose();
  }
}

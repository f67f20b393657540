/**
 * A live viewer over HTTP, read byte by byte with Node's fetch: a Server-Sent Events stream
 * (graphql-sse, /graphql/stream) or a multipart HTTP subscription (Apollo's protocol, POST /graphql).
 * Parsed as the protocols define them, so a test sees results, heartbeats and the end separately, and
 * the raw text for checks of the framing itself.
 */
import { DEADLINE_MS } from './wait';

export type HttpTransport = 'sse' | 'multipart';

export const MULTIPART_ACCEPT = 'multipart/mixed;subscriptionSpec=1.0, application/json';

export interface HttpViewer {
  status: number;
  contentType: string;
  /** The JSON body of an answer that is no stream (a refusal). */
  body: any;
  /** Results (`next` events; multipart parts' payloads), in order. */
  results: any[];
  /** Heartbeats seen (SSE comments after the opening one; multipart `{}` parts after the first). */
  heartbeats: number;
  /** Whether the operation completed (SSE `complete`; multipart closing boundary). */
  completed: boolean;
  /** Multipart transport-level errors (`{"payload": null, "errors": […]}`). */
  transportErrors: any[];
  raw: string;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  /** The next result (waits for it). */
  next(timeoutMs?: number): Promise<any>;
  /** Waits until `check` holds on this viewer. */
  until(check: (viewer: HttpViewer) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export interface OpenOptions {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
  /** SSE only: GET with query parameters instead of POST. */
  method?: 'GET' | 'POST';
  /** Overrides the transport's Accept header. */
  accept?: string;
}

const open = new Set<HttpViewer>();

/** Closes every viewer still open (for afterEach). */
export function closeHttpViewers(): void {
  for (const viewer of open) viewer.close();
  open.clear();
}

/** Opens a viewer on `target` (a stack, a fleet's balancer: anything with a URL). */
export async function openHttpViewer(target: { url: string }, transport: HttpTransport, options: OpenOptions): Promise<HttpViewer> {
  const base = target.url;
  const controller = new AbortController();
  const method = options.method ?? 'POST';
  const params = { query: options.query, variables: options.variables, operationName: options.operationName };
  let url = `${base}${transport === 'sse' ? '/graphql/stream' : '/graphql'}`;
  if (method === 'GET') {
    const search = new URLSearchParams({ query: options.query });
    if (options.variables) search.set('variables', JSON.stringify(options.variables));
    url += `?${search.toString()}`;
  }
  const response = await fetch(url, {
    method,
    signal: controller.signal,
    headers: {
      accept: options.accept ?? (transport === 'sse' ? 'text/event-stream' : MULTIPART_ACCEPT),
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: method === 'POST' ? JSON.stringify(params) : undefined,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  let read = 0;
  const viewer: HttpViewer = {
    status: response.status,
    contentType,
    body: null,
    results: [],
    heartbeats: 0,
    completed: false,
    transportErrors: [],
    raw: '',
    ended: Promise.resolve(),
    async next(timeoutMs = DEADLINE_MS) {
      await viewer.until(() => viewer.results.length > read, timeoutMs);
      return viewer.results[read++];
    },
    async until(check, timeoutMs = DEADLINE_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!check(viewer)) {
        if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; received ${JSON.stringify(viewer.raw.slice(-400))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close() {
      controller.abort();
      open.delete(viewer);
    },
  };
  if (!/text\/event-stream|multipart\/mixed/.test(contentType)) {
    viewer.body = await response.json().catch(() => null);
    return viewer;
  }
  open.add(viewer);
  const parse = transport === 'sse' ? parseSse : parseMultipart;
  let pending = '';
  viewer.ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        viewer.raw += text;
        pending = parse(pending + text, viewer);
        wake();
      }
    } catch {
      // Aborted by the test.
    }
    wake();
  })();
  return viewer;
}

const empties = new WeakMap<HttpViewer, number>();

/** An SSE comment or an empty multipart part: the first opens the stream, every later one is a heartbeat. */
function countEmpty(viewer: HttpViewer): void {
  const seen = (empties.get(viewer) ?? 0) + 1;
  empties.set(viewer, seen);
  viewer.heartbeats = seen - 1;
}

/** Takes the complete SSE messages off `text`, returns the rest. */
function parseSse(text: string, viewer: HttpViewer): string {
  let end = text.indexOf('\n\n');
  while (end >= 0) {
    const block = text.slice(0, end);
    text = text.slice(end + 2);
    end = text.indexOf('\n\n');
    if (block.startsWith(':')) {
      countEmpty(viewer);
      continue;
    }
    const name = /^event: (\w+)$/m.exec(block)?.[1];
    const data = /^data:(?: (.*))?$/m.exec(block)?.[1];
    if (name === 'next') viewer.results.push(JSON.parse(data ?? 'null'));
    else if (name === 'complete') viewer.completed = true;
  }
  return text;
}

const BOUNDARY = '\r\n--graphql';

/** Takes the complete multipart parts off `text`, returns the rest. */
function parseMultipart(text: string, viewer: HttpViewer): string {
  let at = text.indexOf(BOUNDARY);
  while (at >= 0) {
    const part = text.slice(0, at);
    text = text.slice(at + BOUNDARY.length);
    at = text.indexOf(BOUNDARY);
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const body = JSON.parse(part.slice(split + 4));
    if (Object.keys(body).length === 0) countEmpty(viewer);
    else if (body.payload === null) viewer.transportErrors.push(...(body.errors ?? []));
    else viewer.results.push(body.payload);
  }
  if (text.startsWith('--')) viewer.completed = true;
  return text;
}

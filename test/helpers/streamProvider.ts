/**
 * A fake streaming provider: a real HTTP server on a free port that records every call the service
 * makes (operation, headers, JSON body) and answers as told. By default createStream answers a new
 * stream and every other operation 200 {}; `answer()` queues answers for one operation, including a
 * dropped connection and no answer at all.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const OPERATIONS = ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream', 'verifyAccount', 'activateStream'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface RecordedCall {
  operation: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: any;
}

/** An answer: a status with a JSON body, a dropped connection, or none at all (the caller must time out). */
export type Answer = { status: number; body?: unknown } | 'drop' | 'hang';

export interface FakeStreamProvider {
  url: string;
  calls: RecordedCall[];
  /** The calls of one operation. */
  callsOf(operation: Operation): RecordedCall[];
  /** The next calls of `operation` get these answers, in order; then the default again. */
  answer(operation: Operation, ...answers: Answer[]): void;
  /** URLs of every operation at this server (for registration); `without` leaves some out. */
  urls(without?: Operation[]): Record<string, string>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function defaultAnswer(operation: string): Answer {
  if (operation !== 'createStream') return { status: 200, body: {} };
  const providerStreamId = randomUUID();
  return {
    status: 200,
    body: {
      ingestUrl: `rtmp://ingest.fake.test/live`,
      streamKey: `key-${providerStreamId}`,
      playbackUrl: `https://cdn.fake.test/${providerStreamId}/index.m3u8`,
      providerStreamId,
    },
  };
}

export async function startFakeStreamProvider(): Promise<FakeStreamProvider> {
  const calls: RecordedCall[] = [];
  const queued = new Map<string, Answer[]>();
  const sockets = new Set<Socket>();
  // A request that fails (its body cannot be read) ends its connection.
  const server: Server = createServer((request, response) => void serve(request, response).catch(() => response.destroy()));
  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const operation = (request.url ?? '').replace(/^\//, '').split('?')[0];
    const text = await readBody(request);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // recorded as text
    }
    calls.push({ operation, authorization: request.headers.authorization, contentType: request.headers['content-type'], body });
    const answer = queued.get(operation)?.shift() ?? defaultAnswer(operation);
    if (answer === 'hang') return;
    if (answer === 'drop') {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    callsOf: (operation) => calls.filter((call) => call.operation === operation),
    answer(operation, ...answers) {
      queued.set(operation, [...(queued.get(operation) ?? []), ...answers]);
    },
    urls: (without = []) =>
      Object.fromEntries(OPERATIONS.filter((operation) => !without.includes(operation)).map((operation) => [operation, `${url}/${operation}`])),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Chat flows the chat tests share: a chat panel, sends, the room's history, a live watcher of a room
 * over graphql-ws, and a viewer that reconnects with afterSeq as the embed does.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { viewer } from './community';
import { rest, type Reply } from './http';
import { createMemoryBus } from '../../shared/bus/memory';
import { usingRedis } from './database';
import { createTestSite, startTestStack, type TestSite } from './stack';
import { DEADLINE_MS } from './wait';
import { retryBackoff } from './fleetViewer';
import { connectClient } from './viewer';
import type { HttpViewer } from './httpViewer';

/** Creates a chat panel with these renderer settings; returns its ID. */
export async function createChatPanel(stack: Pick<Stack, 'url'>, site: TestSite, renderer: Record<string, unknown> = {}): Promise<string> {
  const reply = await rest(stack, 'POST', '/panel/v3/', {
    headers: site.admin,
    body: { siteId: site.siteId, renderer: { panel_type: 'chat', panel_name: 'Chat', system_name: 'Stage', system_welcome_message: 'Welcome!', ...renderer } },
  });
  if (reply.status !== 200) throw new Error(`panel not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id as string;
}

export const sendChat = (stack: Pick<Stack, 'url'>, site: TestSite, jwt: string | undefined, panelId: string, text: unknown): Promise<Reply> =>
  rest(stack, 'POST', `/chat/v1/${panelId}/messages`, { headers: viewer(site, jwt), body: { text } });

export const CHAT_SUBSCRIPTION = /* GraphQL */ `
  subscription Chat($panelId: ID!, $afterSeq: Int) {
    chatMessages(panelId: $panelId, afterSeq: $afterSeq) {
      kind ids accountId
      messages { id seq panelId text author { accountId name admin } created streamSecond }
      system { name image welcomeMessage rulesLinkUrl loginButtonText allowLinks slowModeSeconds }
    }
  }
`;

export interface ChatWatcher {
  client: Client;
  events: any[];
  /** When each event arrived (Date.now()), by index in `events`. */
  arrivals: number[];
  errors: unknown[];
  /** Seqs of the messages received, in the order received. */
  seqs(): number[];
  /** Waits for an event that satisfies `test`. */
  until(test: (event: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Waits until the messages received satisfy `test`. */
  untilSeqs(test: (seqs: number[]) => boolean, timeoutMs?: number): Promise<number[]>;
}

/** Subscribes to a room on its own socket; `clients` keeps the socket for disposal. */
export function watchChat(
  stack: Pick<Stack, 'url'>,
  siteId: string,
  panelId: string,
  clients: Client[],
  options: { afterSeq?: number; jwt?: string; query?: string } = {},
): ChatWatcher {
  const params: Record<string, unknown> = { 'x-service-client-id': siteId };
  if (options.jwt) params.Authorization = `Bearer ${options.jwt}`;
  const client = connectClient(stack, params);
  clients.push(client);
  const events: any[] = [];
  const arrivals: number[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ chatMessages: any }>(
    { query: options.query ?? CHAT_SUBSCRIPTION, variables: { panelId, afterSeq: options.afterSeq ?? null } },
    {
      next: (result) => {
        if (result.errors) errors.push(result.errors);
        if (result.data?.chatMessages) arrivals[events.push(result.data.chatMessages) - 1] = Date.now();
      },
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  const seqs = () => events.flatMap((event) => event.messages.map((message: { seq: number }) => message.seq));
  const wait = async <T>(probe: () => T | undefined, describe: () => string, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = probe();
      if (hit !== undefined) return hit;
      if (errors.length > 0) throw new Error(`subscription failed: ${JSON.stringify(errors)}`);
      if (Date.now() > deadline) throw new Error(describe());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    client,
    events,
    arrivals,
    errors,
    seqs,
    until: (test, timeoutMs = DEADLINE_MS) =>
      wait(
        () => events.find(test),
        () => `no matching chat event; got ${JSON.stringify(events)}`,
        timeoutMs,
      ),
    untilSeqs: (test, timeoutMs = DEADLINE_MS) =>
      wait(
        () => (test(seqs()) ? seqs() : undefined),
        () => `seqs never matched; got ${JSON.stringify(seqs())}`,
        timeoutMs,
      ),
  };
}

/** Reaction counts a watcher got, summed per emoji over every event that carried some. */
export function reactionTotals(watcher: ChatWatcher): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const event of watcher.events) for (const { emoji, count } of event.reactions ?? []) totals[emoji] = (totals[emoji] ?? 0) + count;
  return totals;
}

/** Runs a query or mutation on an open graphql-ws socket. */
export function onSocket(client: Client, query: string, variables: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    let result: unknown;
    client.subscribe({ query, variables }, { next: (value) => (result = value), error: reject, complete: () => resolve(result) });
  });
}

/** Seqs from..to: what a room holds after `to` messages, or what a viewer should have seen. */
export const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

/** A message a send was answered 201 for. */
export interface AckedChat {
  id: string;
  seq: number;
  text: string;
}

/** Sends `count` messages from fresh accounts (the per-account limit stays out of the way), all at once; each must be answered 201. */
export async function sendMany(on: Pick<Stack, 'url'>, owner: TestSite, panelId: string, count: number, label: string): Promise<AckedChat[]> {
  const tokens = await Promise.all(Array.from({ length: Math.ceil(count / 10) }, () => owner.token([])));
  const replies = await Promise.all(range(1, count).map((index) => sendChat(on, owner, tokens[index % tokens.length], panelId, `${label} ${index}`)));
  for (const reply of replies) expect(reply.status).toBe(201);
  return replies.map((reply) => ({ id: reply.body.id, seq: reply.body.seq, text: reply.body.text }));
}

/** The room's whole history, oldest first, paged back through GET /chat/v1/{panelId}/messages. */
export async function chatHistory(on: Pick<Stack, 'url'>, owner: TestSite, panelId: string): Promise<AckedChat[]> {
  const pages: AckedChat[][] = [];
  for (let before: number | null = null; ;) {
    const reply: Reply = await rest(on, 'GET', `/chat/v1/${panelId}/messages?limit=200${before === null ? '' : `&before=${before}`}`, {
      headers: viewer(owner),
    });
    if (reply.status !== 200) throw new Error(`history not read: ${reply.status} ${JSON.stringify(reply.body)}`);
    pages.unshift(reply.body.results.map(({ id, seq, text }: AckedChat) => ({ id, seq, text })));
    before = reply.body.pagination.nextBefore;
    if (before === null) return pages.flat();
  }
}

/** A viewer of a room that reconnects as the embed does (see followChat). */
export interface FollowingChat {
  /** Seqs of every message received, across reconnects, in the order received. */
  seqs(): number[];
  /** Whether the current subscription has had its first event. */
  live(): boolean;
  /** Subscriptions opened again after one ended. */
  reconnects(): number;
  /** How each subscription ended, for a failure's message. */
  ends: string[];
  /** Drops the socket as a failing network does; the viewer reconnects. */
  drop(): void;
  stop(): Promise<void>;
}

/**
 * A viewer that reconnects as the embed does: when its socket drops or its subscription fails, it
 * subscribes again on a new socket, after a jittered backoff, with `afterSeq` = the last seq it saw (none
 * before its first event: the room is new). What it receives is kept across reconnects, so a gap or a
 * duplicate shows in `seqs()`.
 */
export function followChat(on: Pick<Stack, 'url'>, siteId: string, panelId: string): FollowingChat {
  const seqs: number[] = [];
  const ends: string[] = [];
  let started = false;
  let live = false;
  let stopped = false;
  let reconnects = 0;
  let client: Client | null = null;
  let socket: { terminate(): void } | null = null;
  const done = (async () => {
    for (let failures = 0; !stopped;) {
      const afterSeq = started ? (seqs.at(-1) ?? 0) : null;
      const current = (client = connectClient(on, { 'x-service-client-id': siteId }, (code) => ends.push(`closed ${code}`)));
      current.on('opened', (opened) => (socket = opened as { terminate(): void }));
      await new Promise<void>((resolve) => {
        current.subscribe<{ chatMessages: { messages: { seq: number }[] } }>(
          { query: CHAT_SUBSCRIPTION, variables: { panelId, afterSeq } },
          {
            next: (result) => {
              if (result.errors) ends.push(JSON.stringify(result.errors));
              const event = result.data?.chatMessages;
              if (!event) return;
              started = live = true;
              failures = 0;
              for (const message of event.messages) seqs.push(message.seq);
            },
            error: () => resolve(),
            complete: () => resolve(),
          },
        );
      });
      live = false;
      await current.dispose();
      if (stopped) return;
      reconnects += 1;
      await retryBackoff(failures++);
    }
  })();
  return {
    seqs: () => seqs,
    live: () => live,
    reconnects: () => reconnects,
    ends,
    drop: () => socket?.terminate(),
    async stop() {
      stopped = true;
      await client?.dispose();
      await done;
    },
  };
}

/** Two instances of one deployment (one database; Redis when REDIS_URL is set, else a shared in-process bus) and a site on them. */
export async function startChatFleet(siteName: string, env: Record<string, string> = {}): Promise<{ first: Stack; second: Stack; shared: TestSite }> {
  const bus = usingRedis ? undefined : createMemoryBus();
  const first = await startTestStack({ bus, env });
  const second = await startTestStack({ sameDeploymentAs: first, bus, env });
  return { first, second, shared: await createTestSite(first, siteName) };
}

/**
 * The next chat event an HTTP viewer got, past any VIEWERS event: the room's viewer count comes whenever the
 * instances' counts change (CHAT_OCCUPANCY_MS), between any two events a test is about.
 */
export async function nextChatEvent(watcher: HttpViewer): Promise<any> {
  for (;;) {
    const event = (await watcher.next()).data.chatMessages;
    if (event.kind !== 'VIEWERS') return event;
  }
}

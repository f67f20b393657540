/** Chat flows the chat tests share: a chat panel, a send, and a live watcher of a room over graphql-ws. */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { viewer } from './community';
import { rest, type Reply } from './http';
import type { TestSite } from './stack';
import { connectClient } from './viewer';

/** Creates a chat panel with these renderer settings; returns its ID. */
export async function createChatPanel(stack: Stack, site: TestSite, renderer: Record<string, unknown> = {}): Promise<string> {
  const reply = await rest(stack, 'POST', '/panel/v3/', {
    headers: site.admin,
    body: { siteId: site.siteId, renderer: { panel_type: 'chat', panel_name: 'Chat', system_name: 'Stage', system_welcome_message: 'Welcome!', ...renderer } },
  });
  if (reply.status !== 200) throw new Error(`panel not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id as string;
}

export const sendChat = (stack: Stack, site: TestSite, jwt: string | undefined, panelId: string, text: unknown): Promise<Reply> =>
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
  errors: unknown[];
  /** Seqs of the messages received, in the order received. */
  seqs(): number[];
  /** Waits for an event that satisfies `test`. */
  until(test: (event: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Waits until the messages received satisfy `test`. */
  untilSeqs(test: (seqs: number[]) => boolean, timeoutMs?: number): Promise<number[]>;
}

/** Subscribes to a room on its own socket; `clients` keeps the socket for disposal. */
export function watchChat(stack: Stack, siteId: string, panelId: string, clients: Client[], options: { afterSeq?: number; jwt?: string } = {}): ChatWatcher {
  const params: Record<string, unknown> = { 'x-service-client-id': siteId };
  if (options.jwt) params.Authorization = `Bearer ${options.jwt}`;
  const client = connectClient(stack, params);
  clients.push(client);
  const events: any[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ chatMessages: any }>(
    { query: CHAT_SUBSCRIPTION, variables: { panelId, afterSeq: options.afterSeq ?? null } },
    {
      next: (result) => {
        if (result.errors) errors.push(result.errors);
        if (result.data?.chatMessages) events.push(result.data.chatMessages);
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
    errors,
    seqs,
    until: (test, timeoutMs = 5000) => wait(() => events.find(test), () => `no matching chat event; got ${JSON.stringify(events)}`, timeoutMs),
    untilSeqs: (test, timeoutMs = 5000) => wait(() => (test(seqs()) ? seqs() : undefined), () => `seqs never matched; got ${JSON.stringify(seqs())}`, timeoutMs),
  };
}

/** Runs a query or mutation on an open graphql-ws socket. */
export function onSocket(client: Client, query: string, variables: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    let result: unknown;
    client.subscribe({ query, variables }, { next: (value) => (result = value), error: reject, complete: () => resolve(result) });
  });
}

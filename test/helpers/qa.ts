/** What the Q&A tests share: a Q&A panel, the room's live subscription, and the REST calls of viewers and moderators. */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { viewer } from './community';
import { rest, type Reply } from './http';
import type { TestSite } from './stack';
import { connectClient } from './viewer';
import { NotRetryable, until } from './wait';

/** A Q&A panel of the site with these qa_type_renderer settings (and other renderer fields). */
export async function createQaPanel(
  stack: Pick<Stack, 'url'>,
  site: TestSite,
  settings: Record<string, unknown> = {},
  renderer: Record<string, unknown> = {},
): Promise<string> {
  const reply = await rest(stack, 'POST', '/panel/v3/', {
    headers: site.admin,
    body: { siteId: site.siteId, renderer: { panel_type: 'qa', panel_name: 'Questions', qa_type_renderer: settings, ...renderer } },
  });
  if (reply.status !== 200) throw new Error(`panel not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body._id as string;
}

export const ask = (stack: Pick<Stack, 'url'>, site: TestSite, jwt: string | undefined, panelId: string, body: unknown): Promise<Reply> =>
  rest(stack, 'POST', `/qa/v1/${panelId}/questions`, { headers: viewer(site, jwt), body });

export const vote = (
  stack: Pick<Stack, 'url'>,
  site: TestSite,
  jwt: string | undefined,
  panelId: string,
  questionId: string,
  method: 'POST' | 'DELETE' = 'POST',
) => rest(stack, method, `/qa/v1/${panelId}/questions/${questionId}/vote`, { headers: viewer(site, jwt) });

export const moderate = (
  stack: Pick<Stack, 'url'>,
  site: TestSite,
  panelId: string,
  questionId: string,
  action: 'approve' | 'answer' | 'dismiss' | 'highlight',
) => rest(stack, 'POST', `/qa/v1/${panelId}/questions/${questionId}/${action}`, { headers: site.admin });

export const roomOf = (stack: Pick<Stack, 'url'>, site: TestSite, panelId: string, jwt?: string) =>
  rest(stack, 'GET', `/qa/v1/${panelId}/questions`, { headers: jwt ? viewer(site, jwt) : { 'x-service-client-id': site.siteId } });

export const QA_SUBSCRIPTION = /* GraphQL */ `
  subscription QaRoom($panelId: ID!) {
    qaRoom(panelId: $panelId) { panelId highlightedId questions { id text votes status highlighted author { name } created } }
  }
`;

/** What one qaRoom subscription received, and when. */
export interface QaWatcher {
  events: any[];
  /** When each event arrived (Date.now()), by index in `events`. */
  arrivals: number[];
  errors: unknown[];
  /** Waits for an event `test` accepts (the latest that does). */
  until(test: (event: any) => boolean, what: string): Promise<any>;
}

/** Subscribes to a room on a socket of its own; `clients` keeps the socket for disposal. */
export function watchQa(stack: Pick<Stack, 'url'>, siteId: string, panelId: string, clients: Client[], jwt?: string): QaWatcher {
  const params: Record<string, unknown> = { 'x-service-client-id': siteId, ...(jwt ? { Authorization: `Bearer ${jwt}` } : {}) };
  const client = connectClient(stack, params);
  clients.push(client);
  const events: any[] = [];
  const arrivals: number[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ qaRoom: any }>(
    { query: QA_SUBSCRIPTION, variables: { panelId } },
    {
      next: (result) => {
        if (result.errors) errors.push(result.errors);
        if (result.data?.qaRoom) arrivals[events.push(result.data.qaRoom) - 1] = Date.now();
      },
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  return {
    events,
    arrivals,
    errors,
    until: (test, what) =>
      until(
        () => {
          if (errors.length > 0) throw new NotRetryable(`qaRoom failed: ${JSON.stringify(errors)}`);
          return [...events].reverse().find(test);
        },
        (event) => event !== undefined,
        what,
      ),
  };
}

/** A question's votes in a room event (undefined when the room does not show it). */
export const votesIn = (event: any, questionId: string): number | undefined => event.questions.find((question: any) => question.id === questionId)?.votes;

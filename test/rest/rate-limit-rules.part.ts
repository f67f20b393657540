/**
 * Every rate-limited REST route answers 429 naming its limit: `{success: false, message, rule}` with
 * Retry-After, `rule` the same as GraphQL's `extensions.rule`. The routes come from the route table (a
 * walk: a new rate-limited route without a case here fails the test); each case spends the route's limit
 * with real requests until the one past it.
 */
import { createHmac } from 'node:crypto';
import { routes } from '../../rest-bridge/routes';
import type { Stack } from '../../stack';
import { createChatPanel } from '../helpers/chat';
import { ask, createQaPanel } from '../helpers/qa';
import { join, viewer } from '../helpers/community';
import { graphql, rest, type Reply } from '../helpers/http';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

let stack: Stack;
let site: TestSite;
beforeAll(async () => {
  // Windows no loaded machine outlives while a case spends its limit.
  stack = await startTestStack({ env: { DATA_EVENT_RATE_LIMIT: '3', DATA_EVENT_RATE_WINDOW_SECONDS: '60', CHAT_REACTION_RATE_WINDOW_SECONDS: '600' } });
  site = await createTestSite(stack, 'Limits');
}, 60_000);
afterAll(() => stopAll());

/** One request to the route: path parameters, headers and body (or the exact raw body). */
interface Attempt {
  params?: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

/** How a case drives its route: attempts allowed before the limit bites (the next is refused), the attempt, the rule. */
interface LimitCase {
  allowed: number;
  rule: string;
  prepare(): Promise<() => Attempt>;
}

const resetBody = (email: string) => ({ email, baseUrl: 'https://fans.example.test/reset' });

const CASES: Record<string, LimitCase> = {
  signIn: {
    allowed: 10,
    rule: 'sign_in_failures',
    async prepare() {
      const member = await join(stack, site);
      return () => ({ headers: viewer(site), body: { email: member.email, password: 'not the password' } });
    },
  },
  changePassword: {
    allowed: 10,
    rule: 'sign_in_failures',
    async prepare() {
      const member = await join(stack, site);
      return () => ({ headers: viewer(site, member.jwt), body: { oldPassword: 'not the password', password: 'a new password 123' } });
    },
  },
  requestPasswordReset: {
    allowed: 5,
    rule: 'password_resets',
    async prepare() {
      const member = await join(stack, site);
      return () => ({ headers: viewer(site), body: resetBody(member.email) });
    },
  },
  requestGlobalPasswordReset: {
    allowed: 5,
    rule: 'password_resets',
    async prepare() {
      return () => ({ headers: viewer(site), body: resetBody('global-reset@example.test') });
    },
  },
  createTvCode: {
    allowed: 20,
    rule: 'tv_codes',
    async prepare() {
      return () => ({ headers: viewer(site), body: { deviceId: 'busy-tv' } });
    },
  },
  consumeAccessCode: {
    allowed: 20,
    rule: 'access_code_failures',
    async prepare() {
      const token = await site.token([]);
      let attempt = 0;
      return () => ({ params: { accessCode: `NOPE${(attempt += 1)}` }, headers: viewer(site, token) });
    },
  },
  signInWithAccessCode: {
    allowed: 20,
    rule: 'access_code_failures',
    async prepare() {
      let attempt = 0;
      // Counted per device: one guesser's device.
      return () => ({ headers: { ...viewer(site), 'x-service-device-id': 'guessing-phone' }, body: { accessCode: `NOPE${(attempt += 1)}` } });
    },
  },
  answerPoll: {
    allowed: 30,
    rule: 'answers',
    async prepare() {
      const created = await rest(stack, 'POST', '/poll/v3/', {
        headers: site.admin,
        body: {
          type: 'poll',
          name: 'Limits',
          question: 'Which?',
          answers: [
            { id: 'a', text: 'A' },
            { id: 'b', text: 'B' },
          ],
        },
      });
      expect(created.status).toBe(200);
      const token = await site.token([]);
      // An answer the poll does not have: refused (400) and counted, so the limit is reached without answering.
      return () => ({ params: { id: created.body._id }, headers: viewer(site, token), body: { answerId: 'not-an-answer' } });
    },
  },
  sendChatMessage: {
    allowed: 1,
    rule: 'slow_mode',
    async prepare() {
      const panelId = await createChatPanel(stack, site, { slow_mode_seconds: 60 });
      const token = await site.token([]);
      let attempt = 0;
      return () => ({ params: { panelId }, headers: viewer(site, token), body: { text: `hello ${(attempt += 1)}` } });
    },
  },
  askQaQuestion: {
    allowed: 1,
    rule: 'qa_question',
    async prepare() {
      const panelId = await createQaPanel(stack, site);
      const token = await site.token([]);
      let attempt = 0;
      return () => ({ params: { panelId }, headers: viewer(site, token), body: { text: `Question ${(attempt += 1)}?` } });
    },
  },
  voteQaQuestion: {
    // Each vote spends one, whatever it meets: past the first, the same question's votes are 409 and count alike.
    allowed: 60,
    rule: 'qa_votes',
    async prepare() {
      const panelId = await createQaPanel(stack, site);
      const asked = await ask(stack, site, await site.token([]), panelId, { text: 'Who wins?' });
      const token = await site.token([]);
      return () => ({ params: { panelId, questionId: asked.body.id as string }, headers: viewer(site, token) });
    },
  },
  sendChatReaction: {
    allowed: 30,
    rule: 'reactions',
    async prepare() {
      const panelId = await createChatPanel(stack, site, {});
      const token = await site.token([]);
      return () => ({ params: { panelId }, headers: viewer(site, token), body: { emoji: '👍' } });
    },
  },
  ingestDataEvent: {
    allowed: 3,
    rule: 'data_events',
    async prepare() {
      const body = { name: 'Limits', description: 'events', schema: { type: 'object' }, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true };
      const provider = (await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body })).body as {
        dataProviderId: string;
        secret: string;
      };
      let attempt = 0;
      return () => {
        const rawBody = JSON.stringify({ data: { n: (attempt += 1) } });
        return {
          params: { dataProviderId: provider.dataProviderId },
          headers: { 'X-DataProvider-Signature': createHmac('sha256', provider.secret).update(rawBody).digest('hex') },
          rawBody,
        };
      };
    },
  },
};

const limited = routes.filter((route) => route.rateLimited);

it('every rate-limited route of the table has a case here', () => {
  expect(limited.map((route) => route.operationId).sort()).toEqual(Object.keys(CASES).sort());
});

describe.each(limited.map((route) => [route.operationId, route] as const))('%s', (operationId, route) => {
  it(`answers 429 with Retry-After and the rule past its limit (${route.method.toUpperCase()} ${route.path})`, async () => {
    const limit = CASES[operationId];
    const next = await limit.prepare();
    const send = (attempt: Attempt): Promise<Reply> =>
      rest(
        stack,
        route.method.toUpperCase(),
        route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(attempt.params?.[name] ?? '')),
        attempt,
      );
    // The allowed attempts at once: the window (10 s for reactions) must not pass while they are sent one after
    // another on a loaded machine, or the limit resets and the next one is allowed again.
    const statuses = (await Promise.all(Array.from({ length: limit.allowed }, () => send(next())))).map((reply) => reply.status);
    expect(statuses.filter((status) => status === 429 || status >= 500)).toEqual([]);
    const refused = await send(next());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: expect.any(String), rule: limit.rule });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

it('names the rule in GraphQL’s extensions as in the REST body (a TV code past its limit)', async () => {
  const mutation = /* GraphQL */ `mutation ($deviceId: String!) { createTvCode(deviceId: $deviceId) { code } }`;
  let reply = await graphql(stack, mutation, { deviceId: 'graphql-tv' }, viewer(site));
  for (let index = 0; index < 20 && !reply.body.errors; index += 1) reply = await graphql(stack, mutation, { deviceId: 'graphql-tv' }, viewer(site));
  expect(reply.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', rule: 'tv_codes' });
});

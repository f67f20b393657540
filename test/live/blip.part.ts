/**
 * Nothing lost in a Redis blip (issue 40): every live push goes through the bus's one held path
 * (shared/bus/announcer.ts). Two instances on one database, the second reaching Redis through a TCP
 * proxy that is cut and restored (as test/chat/chat-faults.part.ts). What the cut-off instance produces during
 * the cut reaches its own viewers at once and the other instance's viewers once Redis is back; each test
 * asserts "exactly once" from what the viewers received, after a marker sent after the return has
 * reached them all (the bus carries the marker after the held push, so a second copy would be in by then).
 *
 * Runs only when REDIS_URL is set (a blip needs Redis); on PostgreSQL + Redis in CI.
 */
import { createHmac } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { viewer } from '../helpers/community';
import { usingRedis } from '../helpers/database';
import { rest } from '../helpers/http';
import { startRedisBlip, type RedisBlip } from '../helpers/redisBlip';
import { createChannel, createTestSite, stopAll, type TestSite } from '../helpers/stack';
import { until } from '../helpers/wait';

const clients: Client[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map(async (client) => client.dispose()));
  for (const cleanup of cleanups.reverse()) await cleanup();
  await stopAll();
}, 120_000);

/** What one live subscription received, in order. */
interface Follower<T> {
  received: T[];
}

/** Subscribes on `on` over graphql-ws and resolves once the server has registered the subscription. */
async function follow<T>(
  on: Stack,
  params: Record<string, unknown>,
  query: string,
  variables: Record<string, unknown>,
  pick: (data: any) => T,
): Promise<Follower<T>> {
  const received: T[] = [];
  const errors: unknown[] = [];
  const before = on.gateway.live.stats().subscriptions;
  const client = createClient({ url: `${on.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0 });
  clients.push(client);
  client.subscribe(
    { query, variables },
    {
      next: (result) => (result.errors ? errors.push(result.errors) : received.push(pick(result.data))),
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  await until(
    () => (errors.length > 0 ? -1 : on.gateway.live.stats().subscriptions),
    (count) => count === -1 || count > before,
    'the subscription is registered',
  );
  if (errors.length > 0) throw new Error(`subscription refused: ${JSON.stringify(errors)}`);
  return { received };
}

const report = (what: string, figures: object) => process.stdout.write(`redis blip, ${what}: ${JSON.stringify(figures)}\n`);

if (!usingRedis) {
  it('without Redis the in-process bus never refuses: an announced push reaches every subscriber once (the blip itself runs only with REDIS_URL)', async () => {
    const bus = createMemoryBus();
    const received: unknown[][] = [[], []];
    received.forEach((list) => bus.subscribe('poll-results', (message) => list.push(message)));
    bus.announce('poll-results', 'poll-1', 'latest', { pollId: 'poll-1' });
    await until(
      () => received.map((list) => list.length),
      (counts) => counts.every((count) => count === 1),
      'both subscribers have the push',
    );
    for (const list of received) expect(list).toEqual([{ pollId: 'poll-1', pushId: expect.any(String) }]);
    await bus.close();
  });
} else {
  describe('two instances, the second reaching Redis through a proxy that is cut and restored', () => {
    let first: Stack;
    let cutOff: Stack;
    let site: TestSite;
    let blip: RedisBlip;
    const cut = () => blip.cut();
    const restore = () => blip.restore();

    beforeAll(async () => {
      blip = await startRedisBlip();
      cleanups.push(() => blip.close());
      ({ first, cutOff } = blip);
      site = await createTestSite(first, 'Redis blip');
    }, 60_000);

    // ------------------------------------------------------------------ poll results

    const ANSWERS = [
      { id: 'red', text: 'Red' },
      { id: 'blue', text: 'Blue' },
      { id: 'green', text: 'Green' },
    ];
    const RESULTS = /* GraphQL */ `subscription Results($pollId: ID!) { pollResults(pollId: $pollId) { total answers { id count } mine { answerId } } }`;
    type Results = { total: number; answers: { id: string; count: number }[]; mine: { answerId: string } | null };
    const countsOf = (results: Results) => results.answers.map((entry) => entry.count);

    it('poll results: answers on both instances during the cut; every viewer’s final results (and own answer) exact within 2 s of the return, the final push once', async () => {
      const created = await rest(first, 'POST', '/poll/v3/', {
        headers: site.admin,
        body: { type: 'poll', name: 'Blip poll', question: 'Which colour?', answers: ANSWERS },
      });
      expect(created.status).toBe(200);
      const pollId = created.body._id as string;
      const accounts = await Promise.all(Array.from({ length: 24 }, () => site.signIn([])));
      // Viewers 0–1 watch on the first instance and answer on the cut-off one; viewers 2–3 the other way round.
      const watching = await Promise.all(
        [first, first, cutOff, cutOff].map((on, index) =>
          follow<Results>(
            on,
            { 'x-service-client-id': site.siteId, Authorization: `Bearer ${accounts[index].token}` },
            RESULTS,
            { pollId },
            (data) => data.pollResults,
          ),
        ),
      );
      await Promise.all(
        watching.map((watcher) =>
          until(
            () => watcher.received.length,
            (count) => count > 0,
            'the first results event',
          ),
        ),
      );

      await cut();
      const answerOn = (on: Stack, index: number) =>
        rest(on, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, accounts[index].token), body: { answerId: ANSWERS[index % 3].id } });
      // On the first instance: accounts 2, 3 and 4–13. Its viewers see them over Redis as always.
      const onFirst = [2, 3, ...Array.from({ length: 10 }, (_, index) => index + 4)];
      for (const reply of await Promise.all(onFirst.map((index) => answerOn(first, index)))) expect(reply.status).toBe(200);
      for (const watcher of watching.slice(0, 2))
        await until(
          () => watcher.received.at(-1)?.total,
          (total) => total === onFirst.length,
          'the first instance’s viewers see its answers',
        );
      // Then the last answers, on the cut-off instance: accounts 0, 1 and 14–23. Nothing after them carries them to the first instance.
      const onCutOff = [0, 1, ...Array.from({ length: 10 }, (_, index) => index + 14)];
      for (const reply of await Promise.all(onCutOff.map((index) => answerOn(cutOff, index)))) expect(reply.status).toBe(200);
      const final = [8, 8, 8];
      // The cut-off instance's own viewers get them at once (it delivers what it produces), with their own answers.
      for (const watcher of watching.slice(2))
        await until(
          () => watcher.received.at(-1)?.total,
          (total) => total === 24,
          'the cut-off instance’s viewers see every answer during the cut',
        );
      // Viewers cannot know their own answers given on the other instance yet: only that instance's push carries them.
      for (const watcher of watching) expect(watcher.received.at(-1)?.mine).toBeNull();

      const back = await restore();
      const exactAt = await Promise.all(
        watching.map(async (watcher, index) => {
          await until(
            () => watcher.received.at(-1),
            (results) => results?.total === 24 && results.mine?.answerId === ANSWERS[index % 3].id,
            `viewer ${index} has the final results`,
            30_000,
          );
          return Date.now() - back;
        }),
      );
      for (const watcher of watching) expect(countsOf(watcher.received.at(-1) as Results)).toEqual(final);
      report('poll results', { msFromReturnToExact: exactAt });
      expect(Math.max(...exactAt)).toBeLessThanOrEqual(2000);

      // A marker answer after the return: once every viewer has it, a second copy of the held push would be in.
      const marker = await site.signIn([]);
      expect((await rest(first, 'POST', `/poll/v3/${pollId}/answer`, { headers: viewer(site, marker.token), body: { answerId: 'red' } })).status).toBe(200);
      for (const watcher of watching)
        await until(
          () => watcher.received.at(-1)?.total,
          (total) => total === 25,
          'the marker answer reaches every viewer',
        );
      // The final results with the viewer's own answer went out once (a push without it, during the cut, may precede it).
      for (const watcher of watching) expect(watcher.received.filter((results) => results.total === 24 && results.mine !== null)).toHaveLength(1);
    }, 120_000);

    // ------------------------------------------------------------------ quest progress

    const PROGRESS = /* GraphQL */ `subscription Progress { questProgress { questId accountId completed claimId } }`;
    type Progress = { questId: string; accountId: string; completed: boolean; claimId: string | null };

    it('quest progress: a quest completed on the cut-off instance reaches that viewer at once and the other instance’s viewer after the return, exactly once', async () => {
      const createPoll = async () => {
        const reply = await rest(first, 'POST', '/poll/v3/', {
          headers: site.admin,
          body: { type: 'poll', name: 'Quest poll', question: 'Happy?', answers: ANSWERS },
        });
        expect(reply.status).toBe(200);
        return reply.body._id as string;
      };
      const createQuest = async (pollId: string) => {
        const body = {
          title: 'Blip quest',
          description: 'Answer',
          rewardDescription: 'A badge',
          rewardType: 'prize',
          claimedMessage: 'Yours!',
          siteId: site.siteId,
          actions: [{ kind: 'answer:polls:specific', validationValue: pollId }],
        };
        const reply = await rest(first, 'POST', '/quest/v2', { headers: site.admin, body });
        expect(reply.status).toBe(200);
        return reply.body._id as string;
      };
      const [during, after] = [await createPoll(), await createPoll()];
      const [questDuring, questAfter] = [await createQuest(during), await createQuest(after)];
      const { accountId, token } = await site.signIn([]);
      const follow2 = (params: Record<string, unknown>) =>
        Promise.all([first, cutOff].map((on) => follow<Progress>(on, params, PROGRESS, {}, (data) => data.questProgress)));
      const [onFirst, onCutOff] = await follow2({ 'x-service-client-id': site.siteId, Authorization: `Bearer ${token}` });
      // Another account carries the marker: its answer after the return pushes nothing to the first account's feeds.
      const other = await site.signIn([]);
      const markers = await follow2({ 'x-service-client-id': site.siteId, Authorization: `Bearer ${other.token}` });
      const completions = (follower: Follower<Progress>, questId: string) => follower.received.filter((event) => event.questId === questId && event.completed);

      await cut();
      expect((await rest(cutOff, 'POST', `/poll/v3/${during}/answer`, { headers: viewer(site, token), body: { answerId: 'red' } })).status).toBe(200);
      await until(
        () => completions(onCutOff, questDuring).length,
        (count) => count > 0,
        'the cut-off instance’s viewer sees the completion during the cut',
      );
      expect(completions(onCutOff, questDuring)[0]).toMatchObject({ accountId, completed: true, claimId: expect.any(String) });
      expect(completions(onFirst, questDuring)).toHaveLength(0);

      const back = await restore();
      await until(
        () => completions(onFirst, questDuring).length,
        (count) => count > 0,
        'the first instance’s viewer sees the completion after the return',
      );
      report('quest progress', { msFromReturnToOtherInstance: Date.now() - back });
      // The marker: a completion after the return, carried by the bus behind the held one to each instance.
      expect((await rest(first, 'POST', `/poll/v3/${after}/answer`, { headers: viewer(site, other.token), body: { answerId: 'red' } })).status).toBe(200);
      for (const follower of markers)
        await until(
          () => completions(follower, questAfter).length,
          (count) => count > 0,
          'the marker completion reaches both instances',
        );
      for (const follower of [onFirst, onCutOff]) expect(completions(follower, questDuring)).toHaveLength(1);
      expect(completions(onFirst, questDuring)[0]).toEqual(completions(onCutOff, questDuring)[0]);
    }, 120_000);

    // ------------------------------------------------------------------ viewer reads kept per instance

    it('a content change on the cut-off instance: the other instance drops its cached page configuration once Redis is back, not when its copy expires', async () => {
      const created = await rest(first, 'POST', '/pages/v3', {
        headers: site.admin,
        body: { slug: 'blip-channel', type: 'channel', data: { name: 'Before' } },
      });
      expect(created.status).toBe(200);
      const pageId = created.body._id as string;
      const configurationOn = async (on: Stack) =>
        (await rest(on, 'GET', `/page/v2/configuration/${pageId}`, { headers: { 'x-service-client-id': site.siteId } })).body.page.name as string;
      expect(await configurationOn(first)).toBe('Before');

      await cut();
      expect((await rest(cutOff, 'PUT', `/pages/v3/${pageId}`, { headers: site.admin, body: { data: { name: 'After' } } })).status).toBe(200);
      expect(await configurationOn(cutOff)).toBe('After');
      // The first instance still serves its copy: nothing has told it yet.
      expect(await configurationOn(first)).toBe('Before');

      const back = await restore();
      // Well inside the copy's minute: only the held announcement can make this true.
      await until(
        () => configurationOn(first),
        (name) => name === 'After',
        'the first instance reads the change after the return',
        20_000,
      );
      report('viewer reads', { msFromReturnToFresh: Date.now() - back });
    }, 120_000);

    // ------------------------------------------------------------------ rule-fired broadcasts

    const BROADCASTS = /* GraphQL */ `subscription Overlays($channelId: ID) { overlayBroadcasts(channelId: $channelId) { kind broadcastId variables } }`;
    type Broadcast = { kind: string; broadcastId: string; variables: Record<string, string> };

    it('a broadcast fired by a data event on the cut-off instance (automation rule) reaches every viewer on both instances once', async () => {
      const schema = { type: 'object', properties: { data: { type: 'object', properties: { score: { type: 'number' } } } } };
      const registered = await rest(first, 'POST', '/dataprovider/v1/register', {
        headers: site.admin,
        body: { name: 'Scores', description: 'scores', schema, ownerName: 'Ada', ownerEmail: 'ada@example.test', realtime: true },
      });
      expect(registered.status).toBe(201);
      const provider = registered.body as { dataProviderId: string; secret: string };
      const template = await rest(first, 'POST', '/overlay/v1', {
        headers: site.admin,
        body: { name: 'Score bug', type: 'template', contents: { html: '<b>{score}</b>' }, duration: 120 },
      });
      expect(template.status).toBe(200);
      const jsonRule = {
        trigger: { dataProviderId: provider.dataProviderId, fact: 'data.score', operator: 'greater_than', value: '0', behavior: 'immediate' },
        action: {
          type: 'SEND_OVERLAY',
          targeting: { scope: 'all_channels', target: [] },
          templateId: template.body._id,
          dataMap: { score: 'data.score' },
          broadcastPayload: { duration: 120, variables: {} },
        },
      };
      expect(
        (await rest(first, 'POST', '/personalization/v1/', { headers: site.admin, body: { name: 'Score', jsonRule, active: true, clientRule: false } })).status,
      ).toBe(201);
      const event = async (on: Stack, score: number) => {
        const text = JSON.stringify({ data: { score } });
        const signature = createHmac('sha256', provider.secret).update(text).digest('hex');
        const reply = await rest(on, 'POST', `/dataprovider/v1/${provider.dataProviderId}/events`, {
          headers: { 'X-DataProvider-Signature': signature },
          rawBody: text,
        });
        expect(reply.status).toBe(201);
      };
      const main = await createChannel(first, site.siteId);
      const watching = await Promise.all(
        [first, first, cutOff, cutOff].map((on) =>
          follow<Broadcast>(on, { 'x-service-client-id': site.siteId }, BROADCASTS, { channelId: main }, (data) => data.overlayBroadcasts),
        ),
      );
      const shows = (watcher: Follower<Broadcast>, score: string) =>
        watcher.received.filter((broadcast) => broadcast.kind === 'SHOW' && broadcast.variables.score === score);

      await cut();
      await event(cutOff, 7);
      for (const watcher of watching.slice(2))
        await until(
          () => shows(watcher, '7').length,
          (count) => count > 0,
          'the cut-off instance’s viewers see the rule’s broadcast during the cut',
        );
      for (const watcher of watching.slice(0, 2)) expect(shows(watcher, '7')).toHaveLength(0);

      const back = await restore();
      for (const watcher of watching.slice(0, 2))
        await until(
          () => shows(watcher, '7').length,
          (count) => count > 0,
          'the first instance’s viewers see it after the return',
        );
      report('rule broadcast', { msFromReturnToOtherInstance: Date.now() - back });
      await event(first, 8);
      for (const watcher of watching)
        await until(
          () => shows(watcher, '8').length,
          (count) => count > 0,
          'the marker broadcast reaches every viewer',
        );
      const ids = new Set(watching.map((watcher) => shows(watcher, '7')[0].broadcastId));
      expect(ids.size).toBe(1);
      for (const watcher of watching) {
        expect(shows(watcher, '7')).toHaveLength(1);
        expect(shows(watcher, '8')).toHaveLength(1);
      }
    }, 120_000);
  });
}

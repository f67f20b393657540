/**
 * Audience Q&A on two instances of one deployment (docs/api.md "Questions the audience votes up"): PostgreSQL +
 * Redis when DATABASE_URL and REDIS_URL are set (CI's second pass), else one SQLite file and an in-process bus.
 * Votes on both instances at once are counted once per account (the database's unique key) and every viewer,
 * on either instance, holds the exact count; a highlight asked on one reaches the other's overlay viewers;
 * with Redis, one question a minute holds across the instances, and a Redis blip delays the room but loses
 * nothing: the cut-off instance's own viewers get its votes at once, the other's once Redis is back.
 */
import type { Client } from 'graphql-ws';
import { createMemoryBus } from '../../shared/bus/memory';
import type { Stack } from '../../stack';
import { usingRedis } from '../helpers/database';
import { ask, createQaPanel, moderate, vote, votesIn, watchQa } from '../helpers/qa';
import { startRedisBlip, type RedisBlip } from '../helpers/redisBlip';
import { createChannel, createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { watch } from '../helpers/viewer';
import { until } from '../helpers/wait';

const clients: Client[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await stopAllWithClients(clients);
}, 120_000);

describe('two instances on one database', () => {
  let first: Stack;
  let second: Stack;
  let site: TestSite;

  beforeAll(async () => {
    const bus = usingRedis ? undefined : createMemoryBus();
    first = await startTestStack({ bus });
    second = await startTestStack({ sameDeploymentAs: first, bus });
    site = await createTestSite(first, 'Q&A fleet');
  }, 60_000);

  it('counts each account’s vote once across both instances, and every viewer on either holds the exact count', async () => {
    const panelId = await createQaPanel(first, site);
    const asker = await site.signIn([]);
    const question = await ask(first, site, asker.token, panelId, { text: 'Counted once?' });
    expect(question.status).toBe(201);
    const id = question.body.id as string;
    const watchers = [watchQa(first, site.siteId, panelId, clients), watchQa(second, site.siteId, panelId, clients)];
    for (const watcher of watchers) await watcher.until((event) => votesIn(event, id) === 0, 'the first event');

    const voters = await Promise.all(Array.from({ length: 20 }, () => site.signIn([])));
    // Each voter votes on both instances at the same moment: one of the two goes in, the other is 409.
    const replies = await Promise.all(voters.flatMap((voter) => [vote(first, site, voter.token, panelId, id), vote(second, site, voter.token, panelId, id)]));
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 409)).toHaveLength(20);
    expect(await first.database.prisma.qaVote.count({ where: { questionId: id } })).toBe(20);
    // The count the room reads is the rows' own, raised in the transaction that stored them.
    expect((await first.database.prisma.qaQuestion.findUniqueOrThrow({ where: { id } })).votes).toBe(20);
    for (const watcher of watchers) await watcher.until((event) => votesIn(event, id) === 20, 'all 20 votes on this instance');
    for (const watcher of watchers) {
      const gaps = watcher.arrivals.slice(1).map((at, index) => at - watcher.arrivals[index]);
      expect(gaps.filter((gap) => gap < 900)).toEqual([]);
    }
  });

  it('shows a highlight asked on one instance to the overlay viewers of the other', async () => {
    const channelId = await createChannel(first, site.siteId);
    const panelId = await createQaPanel(first, site, {}, { channel: channelId });
    const question = await ask(first, site, await site.token([]), panelId, { text: 'Seen everywhere?' });
    const watcher = await watch(second, { siteId: site.siteId, channelId });
    expect((await moderate(first, site, panelId, question.body.id, 'highlight')).status).toBe(200);
    const shown = await watcher.next();
    expect(shown.kind).toBe('SHOW');
    expect(shown.overlay.contents.html).toContain('Seen everywhere?');
    await watcher.close();
  });

  // Without REDIS_URL each instance counts its limits alone (shared/rateLimits.ts), so this runs on the Redis pass.
  if (usingRedis)
    it('holds one question a minute per account across the instances (counted in Redis)', async () => {
      const panelId = await createQaPanel(first, site);
      const token = await site.token([]);
      const replies = await Promise.all([ask(first, site, token, panelId, { text: 'On one' }), ask(second, site, token, panelId, { text: 'On two' })]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([201, 429]);
      expect(replies.find((reply) => reply.status === 429)?.body.rule).toBe('qa_question');
      expect(await first.database.prisma.qaQuestion.count({ where: { panelId } })).toBe(1);
    });
});

// A blip needs Redis: on the PostgreSQL + Redis pass.
if (usingRedis)
  describe('a Redis blip', () => {
    let blip: RedisBlip;
    let site: TestSite;

    beforeAll(async () => {
      blip = await startRedisBlip();
      cleanups.push(() => blip.close());
      site = await createTestSite(blip.first, 'Q&A blip');
    }, 60_000);

    it('delays the room for the other instance but loses nothing: exact counts everywhere once Redis is back', async () => {
      const { first, cutOff } = blip;
      const panelId = await createQaPanel(first, site);
      const question = await ask(first, site, await site.token([]), panelId, { text: 'Through a blip?' });
      const id = question.body.id as string;
      const onFirst = watchQa(first, site.siteId, panelId, clients);
      const onCutOff = watchQa(cutOff, site.siteId, panelId, clients);
      for (const watcher of [onFirst, onCutOff]) await watcher.until((event) => votesIn(event, id) === 0, 'the first event');

      await blip.cut();
      const voters = await Promise.all(Array.from({ length: 10 }, () => site.signIn([])));
      for (const reply of await Promise.all(voters.map((voter) => vote(cutOff, site, voter.token, panelId, id)))) expect(reply.status).toBe(200);
      // The cut-off instance delivers what it produces to its own viewers at once.
      await onCutOff.until((event) => votesIn(event, id) === 10, 'the cut-off instance’s viewer sees its votes during the cut');
      await blip.restore();
      await onFirst.until((event) => votesIn(event, id) === 10, 'the first instance’s viewer has the exact count once Redis is back');
      await until(
        () => [onFirst, onCutOff].map((watcher) => votesIn(watcher.events.at(-1), id)),
        (counts) => counts.every((count) => count === 10),
        'both viewers end on the exact count',
      );
    }, 120_000);
  });

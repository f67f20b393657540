/**
 * Questions the audience votes up (docs/api.md "Questions the audience votes up"), end to end on one instance:
 * the panel's qa_type_renderer checked; asking (max_length, the chat's filtered words, one a minute per
 * account, anonymous only where allowed); voting once each on others' shown questions of the same room, and
 * taking it back; the room in vote order with the reader's own held questions and votes; moderators
 * approving, answering, dismissing and highlighting (the highlight over the video as an overlay, replaced by
 * the next); the live room over graphql-ws, its counts exact and pushed at most once a second. Every refusal
 * names why and stores nothing.
 */
import type { Client } from 'graphql-ws';
import type { Stack } from '../../stack';
import { createChatPanel } from '../helpers/chat';
import { viewer } from '../helpers/community';
import { graphql, rest } from '../helpers/http';
import { ask, createQaPanel, moderate, roomOf, vote, votesIn, watchQa } from '../helpers/qa';
import { createChannel, createTestSite, startTestStack, stopAllWithClients, type TestSite } from '../helpers/stack';
import { watch } from '../helpers/viewer';

let stack: Stack;
let site: TestSite;
let other: TestSite;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Q&A site');
  other = await createTestSite(stack, 'Other Q&A site');
});
afterAll(() => stopAllWithClients(clients));

const storedQuestions = (panelId: string) => stack.database.prisma.qaQuestion.count({ where: { panelId } });
const storedVotes = (panelId: string) => stack.database.prisma.qaVote.count({ where: { panelId } });

describe('the Q&A panel', () => {
  it.each([
    [{ max_length: 'long' }, 'renderer.qa_type_renderer.max_length'],
    [{ max_length: 0 }, 'renderer.qa_type_renderer.max_length'],
    [{ max_length: 1001 }, 'renderer.qa_type_renderer.max_length'],
    [{ moderated: 'yes' }, 'renderer.qa_type_renderer.moderated'],
    [{ anonymous_allowed: 1 }, 'renderer.qa_type_renderer.anonymous_allowed'],
  ])('refuses qa_type_renderer %j with 400 naming %s', async (settings, field) => {
    const reply = await rest(stack, 'POST', '/panel/v3/', {
      headers: site.admin,
      body: { siteId: site.siteId, renderer: { panel_type: 'qa', qa_type_renderer: settings } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: expect.stringContaining(field) });
  });
});

describe('asking', () => {
  it('answers 201 {id, text, votes: 0, status}; refuses empty, over-long and filtered questions with 400 naming why, storing nothing', async () => {
    const panelId = await createQaPanel(stack, site, { max_length: 20 }, { filtered_words: 'spoiler' });
    const refusals: [unknown, string][] = [
      [{ text: '   ' }, 'text must not be empty'],
      [{ text: 'x'.repeat(21) }, 'at most 20 characters'],
      [{ text: 'no SPOILER please' }, 'filters ("spoiler")'],
      [{ text: 'line\nbreak' }, 'control characters'],
      [{ text: 'hidden me', anonymous: true }, 'anonymous questions are not allowed'],
    ];
    const token = await site.token([]);
    for (const [body, why] of refusals) {
      const reply = await ask(stack, site, token, panelId, body);
      expect({ body, status: reply.status, message: reply.body.message }).toEqual({ body, status: 400, message: expect.stringContaining(why) });
    }
    expect(await storedQuestions(panelId)).toBe(0);
    const asked = await ask(stack, site, token, panelId, { text: '  Is it live?  ' });
    expect(asked.status).toBe(201);
    expect(asked.body).toEqual({ id: expect.any(String), text: 'Is it live?', votes: 0, status: 'open' });
  });

  it('allows one question a minute per account: the second is 429 naming the rule, with Retry-After, and is not stored', async () => {
    const panelId = await createQaPanel(stack, site);
    const elsewhere = await createQaPanel(stack, site);
    const token = await site.token([]);
    expect((await ask(stack, site, token, panelId, { text: 'First' })).status).toBe(201);
    const again = await ask(stack, site, token, elsewhere, { text: 'Second' });
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ success: false, message: expect.stringContaining('one question a minute'), rule: 'qa_question' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await storedQuestions(elsewhere)).toBe(0);
    // A refused question spends nothing: another account asks at once.
    expect((await ask(stack, site, await site.token([]), elsewhere, { text: 'Mine' })).status).toBe(201);
  });

  it('needs a signed-in viewer (401); another site’s panel and a panel that is no Q&A room are 404', async () => {
    const panelId = await createQaPanel(stack, site);
    expect((await ask(stack, site, undefined, panelId, { text: 'Anyone?' })).status).toBe(401);
    expect((await ask(stack, other, await other.token([]), panelId, { text: 'From elsewhere' })).status).toBe(404);
    const chat = await createChatPanel(stack, site);
    expect((await ask(stack, site, await site.token([]), chat, { text: 'In chat' })).status).toBe(404);
    expect((await roomOf(stack, other, panelId)).status).toBe(404);
    expect(await storedQuestions(panelId)).toBe(0);
  });

  it('hides the asker’s name where anonymous questions are allowed', async () => {
    const panelId = await createQaPanel(stack, site, { anonymous_allowed: true });
    const asked = await ask(stack, site, await site.token([]), panelId, { text: 'Who am I?', anonymous: true });
    expect(asked.status).toBe(201);
    const room = await roomOf(stack, site, panelId);
    expect(room.body.results).toEqual([expect.objectContaining({ id: asked.body.id, author: null })]);
  });
});

describe('voting', () => {
  it('counts one vote per account on others’ questions, takes it back with DELETE, and orders the room by votes then time', async () => {
    const panelId = await createQaPanel(stack, site);
    const [first, second, voter] = await Promise.all([site.signIn([]), site.signIn([]), site.signIn([])]);
    const older = await ask(stack, site, first.token, panelId, { text: 'Older' });
    const newer = await ask(stack, site, second.token, panelId, { text: 'Newer' });
    expect((await roomOf(stack, site, panelId)).body.results.map((question: any) => question.text)).toEqual(['Older', 'Newer']);

    const up = await vote(stack, site, voter.token, panelId, newer.body.id);
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ id: newer.body.id, votes: 1 });
    const twice = await vote(stack, site, voter.token, panelId, newer.body.id);
    expect(twice.status).toBe(409);
    expect((await vote(stack, site, first.token, panelId, newer.body.id)).body).toEqual({ id: newer.body.id, votes: 2 });

    const room = await roomOf(stack, site, panelId, voter.token);
    expect(room.body.results).toEqual([
      {
        id: newer.body.id,
        text: 'Newer',
        votes: 2,
        status: 'open',
        highlighted: false,
        author: { name: second.accountId },
        created: expect.any(Number),
        votedByMe: true,
      },
      {
        id: older.body.id,
        text: 'Older',
        votes: 0,
        status: 'open',
        highlighted: false,
        author: { name: first.accountId },
        created: expect.any(Number),
        votedByMe: false,
      },
    ]);
    expect((await roomOf(stack, site, panelId)).body.results[0].votedByMe).toBeNull();

    const back = await vote(stack, site, voter.token, panelId, newer.body.id, 'DELETE');
    expect(back.body).toEqual({ id: newer.body.id, votes: 1 });
    expect((await vote(stack, site, voter.token, panelId, newer.body.id, 'DELETE')).body).toEqual({ id: newer.body.id, votes: 1 });
    expect(await storedVotes(panelId)).toBe(1);
    expect((await stack.database.prisma.qaQuestion.findUniqueOrThrow({ where: { id: newer.body.id } })).votes).toBe(1);

    // Deleting the room deletes its questions and votes with it.
    expect((await rest(stack, 'DELETE', `/panel/v3/${panelId}`, { headers: site.admin })).status).toBe(200);
    expect([await storedQuestions(panelId), await storedVotes(panelId)]).toEqual([0, 0]);
  });

  it('refuses a vote on one’s own question, one of another room, a held or a dismissed one with 400 naming why, storing nothing', async () => {
    const panelId = await createQaPanel(stack, site);
    const moderated = await createQaPanel(stack, site, { moderated: true });
    const elsewhere = await createQaPanel(stack, site);
    const [asker, voter, third] = await Promise.all([site.signIn([]), site.signIn([]), site.signIn([])]);
    const own = await ask(stack, site, asker.token, panelId, { text: 'Mine' });
    const held = await ask(stack, site, voter.token, moderated, { text: 'Held' });
    expect(held.status).toBe(202);
    const gone = await ask(stack, site, third.token, elsewhere, { text: 'Gone' });
    const foreign = await ask(stack, site, (await site.signIn([])).token, elsewhere, { text: 'Elsewhere' });
    expect((await moderate(stack, site, elsewhere, gone.body.id, 'dismiss')).status).toBe(200);
    const cases: [string, string, string][] = [
      [panelId, own.body.id, 'your own question'],
      [panelId, foreign.body.id, 'another Q&A room'],
      [moderated, held.body.id, 'held for a moderator'],
      [elsewhere, gone.body.id, 'dismissed'],
    ];
    for (const [room, questionId, why] of cases) {
      const reply = await vote(stack, site, asker.token, room, questionId);
      expect({ why, status: reply.status, message: reply.body.message }).toEqual({ why, status: 400, message: expect.stringContaining(why) });
    }
    expect((await vote(stack, site, asker.token, panelId, 'no-such-question')).status).toBe(404);
    expect(await stack.database.prisma.qaVote.count({ where: { accountId: asker.accountId } })).toBe(0);
  });
});

describe('moderation', () => {
  it('holds questions of a moderated room (202): only the asker and moderators see them until approved', async () => {
    const panelId = await createQaPanel(stack, site, { moderated: true });
    const [asker, someone] = await Promise.all([site.signIn([]), site.signIn([])]);
    const held = await ask(stack, site, asker.token, panelId, { text: 'Can you hear me?' });
    expect(held.status).toBe(202);
    expect(held.body).toEqual({ id: expect.any(String), text: 'Can you hear me?', votes: 0, status: 'held' });
    expect((await roomOf(stack, site, panelId, asker.token)).body.results).toEqual([expect.objectContaining({ id: held.body.id, status: 'held' })]);
    expect((await roomOf(stack, site, panelId, someone.token)).body.results).toEqual([]);
    expect((await roomOf(stack, site, panelId)).body.results).toEqual([]);
    expect((await rest(stack, 'GET', `/qa/v1/${panelId}/held`, { headers: viewer(site, someone.token) })).status).toBe(403);
    const queue = await rest(stack, 'GET', `/qa/v1/${panelId}/held`, { headers: site.admin });
    expect(queue.body.results.map((question: any) => question.id)).toEqual([held.body.id]);

    const approved = await moderate(stack, site, panelId, held.body.id, 'approve');
    expect(approved.body).toEqual(expect.objectContaining({ id: held.body.id, status: 'open' }));
    // Approving again changes nothing (a retried request is safe); answering a dismissed question is a conflict.
    expect((await moderate(stack, site, panelId, held.body.id, 'approve')).body.status).toBe('open');
    expect((await roomOf(stack, site, panelId, someone.token)).body.results).toEqual([expect.objectContaining({ id: held.body.id, status: 'open' })]);
    expect((await moderate(stack, site, panelId, held.body.id, 'answer')).body.status).toBe('answered');
    expect((await roomOf(stack, site, panelId)).body.results).toEqual([expect.objectContaining({ status: 'answered' })]);
    expect((await moderate(stack, site, panelId, held.body.id, 'dismiss')).body.status).toBe('dismissed');
    expect((await roomOf(stack, site, panelId)).body.results).toEqual([]);
    expect((await moderate(stack, site, panelId, held.body.id, 'answer')).status).toBe(409);
    // A viewer is no moderator, and another site's moderator finds nothing.
    expect((await rest(stack, 'POST', `/qa/v1/${panelId}/questions/${held.body.id}/approve`, { headers: viewer(site, someone.token) })).status).toBe(403);
    expect((await rest(stack, 'POST', `/qa/v1/${panelId}/questions/${held.body.id}/answer`, { headers: other.admin })).status).toBe(404);
  });

  it('highlights one question: broadcast over the room’s channel as an overlay, and taken down when another is highlighted', async () => {
    const channelId = await createChannel(stack, site.siteId);
    const panelId = await createQaPanel(stack, site, {}, { channel: channelId });
    const [first, second] = await Promise.all([site.signIn([]), site.signIn([])]);
    const one = await ask(stack, site, first.token, panelId, { text: 'Is <b>this</b> on?' });
    const two = await ask(stack, site, second.token, panelId, { text: 'Encore?' });
    const watcher = await watch(stack, { siteId: site.siteId, channelId });

    const highlighted = await moderate(stack, site, panelId, one.body.id, 'highlight');
    expect(highlighted.body).toEqual(expect.objectContaining({ id: one.body.id, highlighted: true }));
    const shown = await watcher.next();
    expect(shown).toEqual(expect.objectContaining({ kind: 'SHOW', channelId }));
    expect(shown.overlay.contents.html).toContain('Is &lt;b&gt;this&lt;/b&gt; on?');
    expect(shown.overlay.contents.html).toContain(first.accountId);

    await moderate(stack, site, panelId, two.body.id, 'highlight');
    const cleared = await watcher.next();
    expect(cleared).toEqual(expect.objectContaining({ kind: 'CLEAR', broadcastId: shown.broadcastId }));
    const next = await watcher.next();
    expect(next.kind).toBe('SHOW');
    expect(next.overlay.contents.html).toContain('Encore?');
    const room = await roomOf(stack, site, panelId);
    expect(room.body.results.filter((question: any) => question.highlighted).map((question: any) => question.id)).toEqual([two.body.id]);

    // Another site's admin naming this room reaches only its own site: this site's highlight stays up.
    const foreign = await graphql(
      stack,
      `mutation Hijack($panelId: ID!) { showQaHighlight(panelId: $panelId, channelIds: [], question: { questionId: "x", text: "Hijack" }) { channelId } }`,
      { panelId },
      other.admin,
    );
    expect(foreign.body.errors).toBeUndefined();
    const live = await stack.database.prisma.overlayBroadcast.findMany({ where: { siteId: site.siteId, clearedAt: null }, select: { id: true } });
    expect(live.map((row) => row.id)).toEqual([next.broadcastId]);
    // Dismissing the highlighted question takes it off the video.
    await moderate(stack, site, panelId, two.body.id, 'dismiss');
    expect(await watcher.next()).toEqual(expect.objectContaining({ kind: 'CLEAR', broadcastId: next.broadcastId }));
    expect((await moderate(stack, site, panelId, two.body.id, 'highlight')).status).toBe(409);
    await watcher.close();
  });
});

describe('the live room', () => {
  it('pushes the room at subscribe and its exact counts as votes arrive, at most once a second', async () => {
    const panelId = await createQaPanel(stack, site);
    const asker = await site.signIn([]);
    const question = await ask(stack, site, asker.token, panelId, { text: 'Live?' });
    const watcher = watchQa(stack, site.siteId, panelId, clients);
    await watcher.until((event) => votesIn(event, question.body.id) === 0, 'the first event');
    const voters = await Promise.all(Array.from({ length: 12 }, () => site.signIn([])));
    for (const [index, voter] of voters.entries()) {
      expect((await vote(stack, site, voter.token, panelId, question.body.id)).body.votes).toBe(index + 1);
    }
    await watcher.until((event) => votesIn(event, question.body.id) === 12, 'all 12 votes');
    const gaps = watcher.arrivals.slice(1).map((at, index) => at - watcher.arrivals[index]);
    expect(gaps.filter((gap) => gap < 900)).toEqual([]);
    // Counts only ever grow here: never an event that went back.
    const seen = watcher.events.map((event) => votesIn(event, question.body.id) as number);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('over GraphQL: ask, vote and the room as queries and mutations', async () => {
    const panelId = await createQaPanel(stack, site);
    const [asker, voter] = await Promise.all([site.signIn([]), site.signIn([])]);
    const asked = await graphql(
      stack,
      `mutation Ask($panelId: ID!) { askQaQuestion(panelId: $panelId, text: "Over GraphQL?") { id status votes } }`,
      { panelId },
      viewer(site, asker.token),
    );
    const id = asked.body.data.askQaQuestion.id as string;
    expect(asked.body.data.askQaQuestion).toEqual({ id, status: 'open', votes: 0 });
    const voted = await graphql(
      stack,
      `mutation Vote($panelId: ID!, $id: ID!) { voteQaQuestion(panelId: $panelId, questionId: $id) { votes } }`,
      { panelId, id },
      viewer(site, voter.token),
    );
    expect(voted.body.data.voteQaQuestion).toEqual({ votes: 1 });
    const own = await graphql(
      stack,
      `mutation Vote($panelId: ID!, $id: ID!) { voteQaQuestion(panelId: $panelId, questionId: $id) { votes } }`,
      { panelId, id },
      viewer(site, asker.token),
    );
    expect(own.body.errors?.[0].extensions).toEqual(expect.objectContaining({ code: 'BAD_USER_INPUT', rule: 'own_question' }));
    const room = await graphql(
      stack,
      `query Room($panelId: ID!) { qaQuestions(panelId: $panelId) { results { id votes votedByMe author { name } } } }`,
      { panelId },
      viewer(site, voter.token),
    );
    expect(room.body.data.qaQuestions.results).toEqual([{ id, votes: 1, votedByMe: true, author: { name: asker.accountId } }]);
  });
});

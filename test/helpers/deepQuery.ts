/**
 * The deep query of the gateway bench and of the stock-path comparison (test/gateway/stock-path.part.ts): a
 * channel's configuration → its panels → the site's polls with their results and quests with their players'
 * claims → the chat's authors, across all four subgraphs (content; overlays for Site.overlays; community for
 * Quest.claimStatuses and ChatAuthor.name; integrations for dataProviders), answered with more than 50 KB of
 * data seeded here.
 */

import { signSessionToken } from '../../shared/auth/credentials';

const POLLS = 24;
/** Polls whose results the query reads (aliased pollResults): within the default 500-token document limit. */
const RESULTS = 8;
const QUESTS = 12;
const OVERLAYS = 12;
const CHAT_MESSAGES = 150;
/** Chat allows 20 messages per 30 s per account: 10 authors write 15 each. */
const AUTHORS = 10;
const PROVIDERS = 4;

const words = (count: number, seed: number) => Array.from({ length: count }, (_, index) => `word${(seed * 31 + index) % 97}`).join(' ');

/** The deep operation for these polls (one aliased pollResults per poll). */
export function deepQuery(pollIds: string[]): string {
  const results = pollIds.map((_, index) => `r${index}: pollResults(pollId: $p${index}) { pollId question total answers { id text count } }`).join('\n  ');
  const variables = pollIds.map((_, index) => `$p${index}: ID!`).join(', ');
  return /* GraphQL */ `query DeepChannel($pageId: ID!, $chatPanelId: ID!, ${variables}) {
  pageConfiguration(pageId: $pageId) {
    page { id slug type name }
    panels { id slug panelName panelType iconName }
    insights { id version }
    site { id name deviceLimit settings overlays { id name description type contents cta { type data } duration created modified } }
  }
  panels(limit: 100) { results { id slug type renderer created modified } }
  polls(limit: 100) { id type name question answers { id text imageUrl } correctAnswerId open created modified }
  ${results}
  quests(limit: 100) { results { id title description channelIds rewardDescription rewardType actions { arrayId kind body callToAction validationValue valueRequired } claimStatuses { id status productId accountId } } }
  chatMessages(panelId: $chatPanelId, limit: 200) { results { id seq text created author { accountId name admin } } }
  dataProviders { id name description facts realtime ownerName created }
}`;
}

export interface DeepQuery {
  body: string;
  /** C + D of the seeded site. */
  headers: Record<string, string>;
  siteId: string;
}

/** A REST call to the stack being seeded: the JSON answer, or a rejection when it is not 2xx. */
export type CallJson = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<Record<string, any>>;

/**
 * Seeds `site` (channel, panels, polls with answers, quests, overlays, chat, data providers) through `call` and
 * returns the deep request; the chat's authors sign in with JWTs signed with `jwtSecret`.
 */
export async function seedDeepSite(call: CallJson, site: { siteId: string; developerKey: string }, jwtSecret: string): Promise<DeepQuery> {
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const page = await call('POST', '/pages/v3', headers, {
    type: 'channel',
    slug: 'deep-channel',
    data: { name: 'Deep channel' },
    active_renderers: { livestream: true },
  });
  const pageId = page._id as string;
  const chat = await call('POST', '/panel/v3/', headers, {
    siteId: site.siteId,
    renderer: { panel_type: 'chat', panel_name: 'Chat', system_name: 'Stage', system_welcome_message: words(20, 1) },
  });
  for (let index = 0; index < 6; index += 1) {
    await call('POST', '/panel/v3/', headers, {
      siteId: site.siteId,
      renderer: { panel_type: 'html', panel_name: `Panel ${index}`, html: `<p>${words(60, index)}</p>` },
    });
  }
  const pollIds: string[] = [];
  for (let index = 0; index < POLLS; index += 1) {
    const answers = Array.from({ length: 4 }, (_, answer) => ({ id: `a${answer}`, text: words(8, index + answer) }));
    const poll = await call('POST', '/poll/v3/', headers, { type: 'poll', name: `Poll ${index}`, question: words(25, index), answers });
    pollIds.push(poll._id as string);
  }
  for (let index = 0; index < QUESTS; index += 1) {
    await call('POST', '/quest/v2', headers, {
      title: `Quest ${index}`,
      description: words(30, index),
      actions: [
        { arrayId: '1', kind: 'answer:polls:specific', validationValue: pollIds[index], body: words(10, index), callToAction: 'Vote' },
        { arrayId: '2', kind: 'answer:polls:any', body: words(10, index + 1) },
      ],
      channelIds: [pageId],
      rewardDescription: words(12, index),
      rewardType: 'raffle',
      claimedMessage: 'You are in the draw',
      siteId: site.siteId,
    });
  }
  for (let index = 0; index < OVERLAYS; index += 1) {
    await call('POST', '/overlay/v1', headers, {
      name: `Overlay ${index}`,
      type: 'instance',
      contents: { text: words(80, index) },
      duration: 10,
    });
  }
  for (let index = 0; index < PROVIDERS; index += 1) {
    await call('POST', '/dataprovider/v1/register', headers, {
      name: `Provider ${index}`,
      description: words(20, index),
      schema: { type: 'object', properties: { data: { type: 'object', properties: { score: { type: 'number' }, team: { type: 'string' } } } } },
      ownerName: 'Bench',
      ownerEmail: 'bench@example.test',
      realtime: true,
      ttl: null,
    });
  }
  // Authors: accounts of the site signing the chat (their JWTs signed with the stack's secret).
  const authors: string[] = [];
  for (let index = 0; index < AUTHORS; index += 1) {
    const account = await call(
      'POST',
      '/account/v3/',
      { 'x-service-client-id': site.siteId },
      { email: `author${index}@example.test`, name: `Author ${index}`, password: 'bench-password-1' },
    );
    authors.push(signSessionToken({ sub: account._id as string, site: site.siteId, roles: [] }, jwtSecret, 3600));
  }
  for (let index = 0; index < CHAT_MESSAGES; index += 1) {
    await call(
      'POST',
      `/chat/v1/${chat._id as string}/messages`,
      { 'x-service-client-id': site.siteId, authorization: `Bearer ${authors[index % authors.length]}` },
      { text: words(25, index) },
    );
  }
  const variables: Record<string, string> = { pageId, chatPanelId: chat._id as string };
  const withResults = pollIds.slice(0, RESULTS);
  withResults.forEach((id, index) => (variables[`p${index}`] = id));
  return { body: JSON.stringify({ query: deepQuery(withResults), variables }), headers, siteId: site.siteId };
}

/**
 * THE route table: every REST path stagegraph serves, as data, one file per family of the seeds' Endpoints
 * headings (and ours where the seeds have none), and the OpenAPI components those routes refer to.
 */
import type { JsonSchema, RouteSpec } from '../table';
import { insightsRoutes, insightsSchemas } from './insights';
import { overlayRoutes, overlaySchemas } from './overlays';
import { automationRuleRoutes, automationRuleSchemas } from './automationRules';
import { channelTemplateRoutes, channelTemplateSchemas } from './channelTemplates';
import { pageRoutes, pageSchemas } from './pages';
import { panelRoutes, panelSchemas } from './panels';
import { playlistRoutes, playlistSchemas } from './playlists';
import { pollAnswerRoutes, pollAnswerSchemas, pollRoutes, pollSchemas } from './polls';
import { leaderboardRoutes, leaderboardSchemas } from './leaderboard';
import { chatRoutes, chatSchemas } from './chat';
import { chatModerationRoutes, chatModerationSchemas } from './chatModeration';
import { qaRoutes, qaSchemas } from './qa';
import { questProgressRoutes, questProgressSchemas, questRoutes, questSchemas } from './quests';
import { calendarRoutes, calendarSchemas } from './calendar';
import { scheduleRoutes, scheduleSchemas } from './schedule';
import { siteRoutes, siteSchemas } from './site';
import { webhookRoutes, webhookSchemas } from './webhooks';
import { accountRoutes, accountSchemas } from './accounts';
import { billingRoutes, billingSchemas } from './billing';
import { accessCodeRoutes, accessCodeSchemas } from './accessCodes';
import { bundleRoutes, bundleSchemas } from './bundles';
import { entitlementRoutes } from './entitlements';
import { claimStatusRoutes, claimStatusSchemas } from './claimStatuses';
import { communityRoutes, communitySchemas } from './community';
import { customEmailRoutes, customEmailSchemas } from './customEmail';
import { inviteRoutes, inviteSchemas } from './invites';
import { streamProviderRoutes, streamProviderSchemas } from './streamProvider';
import { streamRoutes, streamSchemas } from './streams';
import { videoRoutes, videoSchemas } from './videos';
import { dataProviderRoutes, dataProviderSchemas } from './dataProvider';
import { sharedSchemas } from './shared';
import { trustedDocumentRoutes, trustedDocumentSchemas } from './trustedDocuments';

/**
 * Order matters: it is the order of the OpenAPI document, and where paths overlap the fixed path comes first
 * (/page/v2/template and the other fixed page paths before /page/v2/{id}; PUT /account/v3/password before
 * PUT /account/v3/{id}).
 */
export const routes: readonly RouteSpec[] = [
  ...insightsRoutes,
  ...overlayRoutes,
  ...automationRuleRoutes,
  ...channelTemplateRoutes,
  ...pageRoutes,
  ...panelRoutes,
  ...playlistRoutes,
  ...pollRoutes,
  ...pollAnswerRoutes,
  ...leaderboardRoutes,
  ...chatRoutes,
  ...chatModerationRoutes,
  ...qaRoutes,
  ...questRoutes,
  ...questProgressRoutes,
  ...calendarRoutes,
  ...scheduleRoutes,
  ...siteRoutes,
  ...webhookRoutes,
  ...accountRoutes,
  ...billingRoutes,
  ...accessCodeRoutes,
  ...bundleRoutes,
  ...entitlementRoutes,
  ...claimStatusRoutes,
  ...communityRoutes,
  ...customEmailRoutes,
  ...inviteRoutes,
  ...streamProviderRoutes,
  ...streamRoutes,
  ...videoRoutes,
  ...dataProviderRoutes,
  ...trustedDocumentRoutes,
];

/** What each tag of the OpenAPI document groups, for the people who read it. */
export const tagDescriptions: Record<string, string> = {
  'Access codes': 'Codes that unlock content: created one by one or in bulk (CSV), consumed by viewers, and TV codes that sign in a television from a phone.',
  Accounts: 'Viewer and admin accounts of a site: sign-up, profile, password, roles (scope, write, pages) and password resets.',
  Authentication: 'Signing in: e-mail and password to a JWT and a refresh token, refreshing (each refresh token works once), login intents.',
  'Automation rules': "Personalization rules: a trigger on a data provider's events and a SEND_OVERLAY action that broadcasts an overlay.",
  Billing: "Charges, refunds and wallet payments of a site's viewers; amounts in cents.",
  Bundles: 'Bundles of pages sold together; readable with the site ID alone.',
  'Calendar events': "The site's calendar of events, with categories, filters and labels; times in Unix milliseconds.",
  'Channel templates': 'Templates new channels are created from: their configuration, panels and theme.',
  'Claim statuses': 'Where a viewer stands in claiming a reward or entitlement.',
  Chat: "Live chat of the chat panels: viewers send as signed-in accounts and read with the site ID; moderators delete messages and ban or time out accounts; a recording's chat replays in stream order.",
  Community: "The site's community: the account listing, exports (CSV) and actions on many accounts' entitlements at once.",
  'Custom receipt e-mail': 'The receipt e-mail a site sends: its Handlebars template, sender domain (SPF, DKIM) and the outbox.',
  'Data providers': 'Partners that send signed data events (HMAC-SHA256 of the raw body in X-DataProvider-Signature) which automation rules react to.',
  Entitlements: 'What an account may watch: entitlements granted by purchases, codes or admins, with their validity.',
  Insights: 'Live viewers per site and channel across all instances (super API key).',
  Invites: 'Magic-link invitations to a site: created by admins, consumed once by the invited person.',
  Leaderboard: 'Points viewers earn (correct trivia answers, correct predictions, completed quests) and their ranking on the site.',
  Overlays: 'Contextual graphics shown over the video: templates and instances, and their broadcasts to channels, the whole site or tagged viewers.',
  'Pages and channels': 'Pages (channels and landing pages) of a site: configuration, content check (canIPlay), cloning.',
  'Q&A':
    'Audience Q&A of the Q&A panels: signed-in viewers ask (one question a minute) and upvote others’ questions; the site ID reads the room in vote order; moderators approve, answer, dismiss and highlight.',
  Panels: 'Interactive panels beside the video (chat, polls, shop…), each with its renderer configuration.',
  Playlists: 'Ordered lists of videos, managed by hand or imported from the external video platform.',
  Polls: 'Polls on a page: questions, answers, votes; viewers answer once and read live results; the correct answer stays hidden while a poll is open.',
  Quests: 'Quests viewers complete for rewards: their steps and progress.',
  Schedules:
    'What a schedule panel lists between two times: its source channels’ schedule items (repeats expanded) and its manual events; times in Unix milliseconds.',
  Site: 'The site itself: its settings and theme.',
  'Streaming providers':
    'Partner contract of streaming providers: registration, contract updates (Bearer token from registration), VOD delivery and test triggers.',
  Streams: 'Streams run through a streaming provider: creating, starting, stopping, activating and their state; provider webhooks.',
  'Trusted documents':
    "A site's persisted query manifest (Apollo's format): operations sent by id, and a setting that runs nothing else for callers without a developer key.",
  Videos: "A channel's videos (its delivered recordings and others): the list, newest first, and their title, description and entitlements.",
  Webhooks: "Where a site's webhooks go (signed with HMAC-SHA256, retried with backoff) and the deliveries with their outcome.",
};

export const componentSchemas: Record<string, JsonSchema> = {
  ErrorBody: {
    type: 'object',
    required: ['success', 'message'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      message: { type: 'string' },
      requestId: { type: 'string' },
      rule: { type: 'string', description: 'on a 429: the limit that was hit (as GraphQL’s extensions.rule)' },
    },
  },
  ...sharedSchemas,
  ...insightsSchemas,
  ...overlaySchemas,
  ...automationRuleSchemas,
  ...channelTemplateSchemas,
  ...pageSchemas,
  ...panelSchemas,
  ...playlistSchemas,
  ...pollSchemas,
  ...pollAnswerSchemas,
  ...leaderboardSchemas,
  ...chatSchemas,
  ...chatModerationSchemas,
  ...qaSchemas,
  ...questSchemas,
  ...questProgressSchemas,
  ...calendarSchemas,
  ...scheduleSchemas,
  ...siteSchemas,
  ...webhookSchemas,
  ...accountSchemas,
  ...billingSchemas,
  ...accessCodeSchemas,
  ...bundleSchemas,
  ...claimStatusSchemas,
  ...communitySchemas,
  ...customEmailSchemas,
  ...inviteSchemas,
  ...streamProviderSchemas,
  ...streamSchemas,
  ...videoSchemas,
  ...dataProviderSchemas,
  ...trustedDocumentSchemas,
};

/** GraphQL types of the content subgraph mapped to Prisma models and the domain modules' values. */
import type {
  CalendarEvent,
  ChannelTemplate,
  Page,
  Panel,
  Playlist,
  Poll,
  Quest,
  Site,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../shared/db/generated/sqlite';
import type { ContentCheckModel } from './contentCheck';
import type { LeaderboardEntryModel } from './leaderboard';
import type { PollResultsModel } from '../../shared/contracts/viewerActivity';
import type { PageConfigurationModel } from './configuration';
import type { PlaylistMemberModel } from './playlists';
import type { ThemeModel } from './theme';
import type { VideoView } from './videoViews';

export type SiteModel = Site;
export type PageModel = Page;
/** A video as its caller may see it: `url` null when that caller may not play it (videoViews.ts). */
export type VideoModel = VideoView;
export type PanelModel = Panel;
export type ChannelTemplateModel = ChannelTemplate;
export type PlaylistModel = Playlist;
export type PollModel = Poll;
export type QuestModel = Quest;
/** A claim of the community subgraph as the gateway hands it over: its key and the fields claimedMessage requires. */
export interface ClaimStatusModel {
  id: string;
  questId: string;
  status: string;
}
export type CalendarEventModel = CalendarEvent;
/** An endpoint; right after it is made (or its secret replaced) it carries the secret in clear, once. */
export type WebhookEndpointModel = WebhookEndpoint & { secret?: string };
export type WebhookDeliveryModel = WebhookDelivery;
export type { LeaderboardEntryModel, PollResultsModel };
export type { ContentCheckModel, PageConfigurationModel, PlaylistMemberModel, ThemeModel };

/** GraphQL types of the content subgraph mapped to Prisma models. */
import type { Page, Site, Video } from '../../shared/db/generated/sqlite';

export type SiteModel = Site;
export type PageModel = Page;
export type VideoModel = Video;

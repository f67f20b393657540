/** Resolvers of playlists: reads (C), writes and imports (D or a Playlists role). */
import { requireAdmin, requireReader, requireSite } from '../../../shared/auth/access';
import type { Prisma } from '../../../shared/db/generated/sqlite';
import { newId } from '../../../shared/ids';
import { badInput } from '../../../shared/errors';
import { stringList } from '../../../shared/json';
import { checkOptionalText, checkTags, checkText } from '../checks';
import { listQuery, searchKey, type ListSpec } from '../listing';
import { checkMembers, findPlaylist, importPlaylist, playlistMembers, videoLoader } from '../playlists';
import { referencesTo } from '../references';
import type { Resolvers } from '../resolvers.generated';
import { Scopes, timestamps } from '../scopes';
import { outboundPolicy } from '../../../shared/outbound';
import type { AccountAccessCache } from '../checkInputs';
import { viewsForCaller } from '../videoViews';
import { readerOf, type ViewerReads } from '../viewerReads';

const PLAYLIST_LIST: ListSpec<string> = {
  sort: { created: 'createdAt', modified: 'updatedAt', title: 'title' },
  defaultSort: 'created',
  defaultDirection: -1,
  properties: { title: { column: 'title', kind: 'text' }, description: { column: 'description', kind: 'text' } },
};

const members = (list: ReturnType<typeof checkMembers>) => list as unknown as Prisma.InputJsonValue;

/** `reads` and `access`: what a member's video view weighs (videoViews.ts). */
export const playlistResolvers = (reads: ViewerReads, access: AccountAccessCache): Resolvers => ({
  Query: {
    playlists: async (_root, { ids, ...args }, { identity, db }) => {
      if (ids && ids.length > 500) throw badInput('ids must name at most 500 playlists', 'ids');
      const list = listQuery(args, PLAYLIST_LIST);
      // Playlists by ID (`/playlist/v1/list`, "D optional") need only the site ID; the site's whole list needs D or J.
      const siteId = ids ? requireSite(identity) : requireReader(identity);
      const where = { siteId, ...list.where, ...(ids ? { id: { in: [...ids] } } : {}) };
      const [results, totalCount] = await db.$transaction([db.playlist.findMany({ where, orderBy: list.orderBy, ...list.page }), db.playlist.count({ where })]);
      return { pagination: list.paginate(results, totalCount), results };
    },
    playlist: (_root, { id }, { identity, db }) => findPlaylist(db, requireSite(identity), id),
    playlistReferences: async (_root, { id }, { identity, db }) => {
      const playlist = await findPlaylist(db, requireSite(identity), id);
      return referencesTo(db, playlist.siteId, { collection: 'playlists', id: playlist.id });
    },
  },
  Mutation: {
    createPlaylist: (_root, { input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.playlists, { write: true });
      const title = checkText(input.title, 'title', 200);
      const now = new Date();
      return db.playlist.create({
        data: {
          id: newId(),
          siteId,
          title,
          searchTitle: searchKey(title),
          description: checkOptionalText(input.description, 'description', 5000) ?? '',
          members: members(checkMembers(input.members)),
          tags: checkTags(input.tags),
          createdAt: now,
          updatedAt: now,
        },
      });
    },
    updatePlaylist: async (_root, { id, input }, { identity, db }) => {
      const siteId = requireAdmin(identity, Scopes.playlists, { write: true });
      const current = await findPlaylist(db, siteId, id);
      const data: Prisma.PlaylistUpdateInput = { updatedAt: new Date() };
      if (input.title !== undefined && input.title !== null) {
        data.title = checkText(input.title, 'title', 200);
        data.searchTitle = searchKey(data.title);
      }
      if (input.description !== undefined && input.description !== null) data.description = checkOptionalText(input.description, 'description', 5000) ?? '';
      if (input.members !== undefined && input.members !== null) data.members = members(checkMembers(input.members));
      if (input.tags !== undefined && input.tags !== null) data.tags = checkTags(input.tags);
      return db.playlist.update({ where: { id: current.id }, data });
    },
    deletePlaylist: async (_root, { id }, { identity, db }) => {
      const playlist = await findPlaylist(db, requireAdmin(identity, Scopes.playlists, { write: true }), id);
      await db.playlist.delete({ where: { id: playlist.id } });
      return { id: playlist.id, success: true };
    },
    importPlaylist: (_root, { url }, { identity, db, config }) =>
      importPlaylist(db, requireAdmin(identity, Scopes.playlists, { write: true }), url, {
        policy: outboundPolicy(config),
        timeoutMs: config.videoPlatformTimeoutMs,
        bases: { youtubeFeedUrl: config.youtubeFeedUrl, dailymotionApiUrl: config.dailymotionApiUrl },
      }),
  },
  Playlist: {
    members: (playlist) => playlistMembers(playlist),
    tags: (playlist) => stringList(playlist.tags),
    ...timestamps,
  },
  PlaylistMember: {
    video: async (member, _args, ctx) => {
      if (member.schema !== 'video') return null;
      const siteId = requireSite(ctx.identity);
      const video = await videoLoader(ctx, ctx.db, siteId).load(member.id);
      return video && (await viewsForCaller({ ...readerOf(ctx, reads), access }, siteId, [video]))[0];
    },
  },
});
